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
 * from 0 (as Doom 3 demands). Facts beyond the seed are in FORMATS.md. */
#include "gsio_md5.h"

#include "gsio_image_file.h"
#include "gsio_internal.h"
#include "gsio_tokenizer.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#ifndef _WIN32
#include <dirent.h>
#endif

// -- Quaternions (double precision inside, floats in and out)

typedef struct md5_quat {
	double x, y, z, w;
} md5_quat;

// id's convention: the stored x, y, z and a non-positive w. When x, y, z
// are longer than 1 (bad data or rounding) w is 0 and x, y, z are scaled to
// a unit quaternion, so a rotation is always a rotation.
static md5_quat quat_from_xyz(const float v[3])
{
	md5_quat q = {v[0], v[1], v[2], 0.0};
	double t = 1.0 - q.x * q.x - q.y * q.y - q.z * q.z;
	if (t > 0.0) {
		q.w = -sqrt(t);
	} else {
		double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
		if (len > 0.0) {
			q.x /= len;
			q.y /= len;
			q.z /= len;
		}
	}
	return q;
}

static md5_quat quat_mul(md5_quat a, md5_quat b)
{
	md5_quat r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
	              a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
	              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
	              a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
	return r;
}

static md5_quat quat_conj(md5_quat q)
{
	md5_quat r = {-q.x, -q.y, -q.z, q.w};
	return r;
}

// q * v * q^-1 for a unit q: v + 2w (u x v) + 2 u x (u x v).
static void quat_rotate(md5_quat q, const double v[3], double out[3])
{
	double tx = 2.0 * (q.y * v[2] - q.z * v[1]);
	double ty = 2.0 * (q.z * v[0] - q.x * v[2]);
	double tz = 2.0 * (q.x * v[1] - q.y * v[0]);
	out[0] = v[0] + q.w * tx + (q.y * tz - q.z * ty);
	out[1] = v[1] + q.w * ty + (q.z * tx - q.x * tz);
	out[2] = v[2] + q.w * tz + (q.x * ty - q.y * tx);
}

static void quat_store(md5_quat q, float out[4])
{
	out[0] = (float)q.x;
	out[1] = (float)q.y;
	out[2] = (float)q.z;
	out[3] = (float)q.w;
}

// -- Parsing helpers

typedef struct md5_parser {
	gsioi_tokenizer tok;
	gsio_arena *arena;
	gsio_error *err;
	const char *file;
} md5_parser;

// A UTF-8 byte order mark is not text: skip it.
static size_t bom_size(const uint8_t *data, size_t size)
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
	size_t skip = bom_size(data, size);
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
		size_t i;
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
		size_t i;
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
		size_t i;
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
	gsio_error_clear(err);
	gsio_arena *arena = gsioi_arena_for(opts, name, err);
	if (!arena) return NULL;
	gsio_md5_mesh *m = gsioi_arena_alloc(arena, sizeof(*m), err);
	if (!m) goto fail;
	m->arena = arena;
	md5_parser p;
	parser_init(&p, data, size, name, arena, err);
	if (!parse_header(&p, &m->version, &m->commandline)) goto fail;
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

static unsigned popcount6(uint32_t flags)
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
		unsigned used = popcount6((uint32_t)flags);
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
	gsio_error_clear(err);
	gsio_arena *arena = gsioi_arena_for(opts, name, err);
	if (!arena) return NULL;
	gsio_md5_anim *a = gsioi_arena_alloc(arena, sizeof(*a), err);
	if (!a) goto fail;
	a->arena = arena;
	md5_parser p;
	parser_init(&p, data, size, name, arena, err);
	if (!parse_header(&p, &a->version, &a->commandline)) goto fail;
	// Per frame at least a bounds line (10 tokens) and `frame i { }` (4).
	if (!parse_count(&p, "numFrames", 1, 14, &a->frames_count)) goto fail;
	if (!parse_count(&p, "numJoints", 1, 14, &a->joints_count)) goto fail;
	if (!gsioi_tok_expect_word(&p.tok, "frameRate")) goto fail;
	gsioi_token at;
	if (!gsioi_tok_peek(&p.tok, &at) || !gsioi_tok_float(&p.tok, "the frame rate", &a->frame_rate))
		goto fail;
	if (!(a->frame_rate > 0.0f)) {
		fail_at(&p, &at, GSIO_ERR_CORRUPT, "frameRate must be positive");
		goto fail;
	}
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
	gsio_error_clear(err);
	gsio_arena *arena = gsioi_arena_for(opts, name, err);
	if (!arena) return NULL;
	gsio_md5_camera *c = gsioi_arena_alloc(arena, sizeof(*c), err);
	if (!c) goto fail;
	c->arena = arena;
	md5_parser p;
	parser_init(&p, data, size, name, arena, err);
	if (!parse_header(&p, &c->version, &c->commandline)) goto fail;
	if (!parse_count(&p, "numFrames", 1, 11, &c->frames_count)) goto fail;
	if (!gsioi_tok_expect_word(&p.tok, "frameRate")) goto fail;
	gsioi_token at;
	if (!gsioi_tok_peek(&p.tok, &at) || !gsioi_tok_float(&p.tok, "the frame rate", &c->frame_rate))
		goto fail;
	if (!(c->frame_rate > 0.0f)) {
		fail_at(&p, &at, GSIO_ERR_CORRUPT, "frameRate must be positive");
		goto fail;
	}
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
	size_t skip = bom_size(data, size);
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
		unsigned used = popcount6(h->flags);
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

// -- Scene: structures built by hand

// decode() has checked all of this already; a caller that fills the
// structures itself gets an error instead of an out-of-bounds read.
static bool mesh_valid(const gsio_md5_mesh *m, gsio_error *err)
{
	const char *bad = NULL;
	if (!m->joints_count || !m->joints) bad = "no joints";
	for (size_t i = 0; !bad && i < m->joints_count; i++)
		if (!m->joints[i].name || m->joints[i].parent < -1 ||
		    (int64_t)m->joints[i].parent >= (int64_t)i)
			bad = "a joint without a name or with a parent that is not an earlier joint";
	for (size_t mi = 0; !bad && mi < m->meshes_count; mi++) {
		const gsio_md5_submesh *sm = &m->meshes[mi];
		if (!sm->shader) bad = "a mesh without a shader string";
		for (size_t i = 0; !bad && i < sm->verts_count; i++)
			if ((uint64_t)sm->verts[i].start + sm->verts[i].count > sm->weights_count)
				bad = "a vertex's weights lie outside its mesh's weights";
		for (size_t i = 0; !bad && i < sm->tris_count; i++)
			for (int k = 0; k < 3; k++)
				if (sm->tris[i].v[k] >= sm->verts_count) bad = "a triangle's vertex is out of range";
		for (size_t i = 0; !bad && i < sm->weights_count; i++)
			if (sm->weights[i].joint >= m->joints_count) bad = "a weight's joint is out of range";
	}
	if (bad) GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "invalid MD5 mesh: %s", bad);
	return !bad;
}

static bool anim_valid(const gsio_md5_anim *a, gsio_error *err)
{
	const char *bad = NULL;
	if (!a->frames_count || !a->joints_count || !a->hierarchy || !a->baseframe ||
	    !a->bounds || (a->components_count && !a->frames))
		bad = "no frames or joints";
	for (size_t i = 0; !bad && i < a->joints_count; i++) {
		const gsio_md5_hierarchy *h = &a->hierarchy[i];
		unsigned used = popcount6(h->flags);
		if (!h->name || h->parent < -1 || (int64_t)h->parent >= (int64_t)i || h->flags > 63 ||
		    (used && (uint64_t)h->start_index + used > a->components_count))
			bad = "a hierarchy entry's name, parent, flags or start index";
	}
	if (bad) GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "invalid MD5 animation: %s", bad);
	return !bad;
}

static bool camera_valid(const gsio_md5_camera *c, gsio_error *err)
{
	bool ok = c->frames_count && c->frames && (c->cuts || !c->cuts_count);
	for (size_t i = 0; ok && i < c->cuts_count; i++)
		ok = c->cuts[i] >= 1 && c->cuts[i] < c->frames_count;
	if (!ok) GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "invalid MD5 camera: no frames or a bad cut");
	return ok;
}

// -- Scene: skeleton

// Keeps one sign convention (w <= 0, id's) for every stored rotation.
static md5_quat canonical(md5_quat q)
{
	if (q.w > 0.0) {
		q.x = -q.x;
		q.y = -q.y;
		q.z = -q.z;
		q.w = -q.w;
	}
	return q;
}

// Joints from an object-space bind pose (md5mesh): the parent-relative pose
// is conj(parent) * joint and conj(parent) applied to the offset.
static bool joints_from_mesh(gsio_scene *s, const gsio_md5_mesh *m, gsio_error *err)
{
	s->joints = GSIO_NEW_ARRAY(s->arena, gsio_joint, m->joints_count, err);
	GSIO_CHECK(s->joints);
	s->joints_count = m->joints_count;
	for (size_t i = 0; i < m->joints_count; i++) {
		const gsio_md5_joint *mj = &m->joints[i];
		gsio_joint *j = &s->joints[i];
		GSIO_CHECK((j->name = gsioi_arena_strdup(s->arena, mj->name, err)));
		j->parent = mj->parent;
		md5_quat q = quat_from_xyz(mj->orient);
		memcpy(j->world_translation, mj->pos, sizeof(j->world_translation));
		quat_store(q, j->world_rotation);
		if (mj->parent < 0) {
			memcpy(j->translation, mj->pos, sizeof(j->translation));
			quat_store(q, j->rotation);
			continue;
		}
		const gsio_md5_joint *pj = &m->joints[mj->parent];
		md5_quat pinv = quat_conj(quat_from_xyz(pj->orient));
		double d[3] = {(double)mj->pos[0] - pj->pos[0], (double)mj->pos[1] - pj->pos[1],
		               (double)mj->pos[2] - pj->pos[2]};
		double t[3];
		quat_rotate(pinv, d, t);
		for (int k = 0; k < 3; k++) j->translation[k] = (float)t[k];
		quat_store(canonical(quat_mul(pinv, q)), j->rotation);
	}
	return true;
}

// Joints from a parent-relative pose (md5anim baseframe): the world pose is
// composed down the hierarchy (parents come first).
static bool joints_from_anim(gsio_scene *s, const gsio_md5_anim *a, gsio_error *err)
{
	s->joints = GSIO_NEW_ARRAY(s->arena, gsio_joint, a->joints_count, err);
	md5_quat *wq = GSIO_NEW_ARRAY(s->arena, md5_quat, a->joints_count, err);
	double *wt = GSIO_NEW_ARRAY(s->arena, double, 3 * a->joints_count, err);
	GSIO_CHECK(s->joints && wq && wt);
	s->joints_count = a->joints_count;
	for (size_t i = 0; i < a->joints_count; i++) {
		const gsio_md5_hierarchy *h = &a->hierarchy[i];
		const gsio_md5_baseframe *b = &a->baseframe[i];
		gsio_joint *j = &s->joints[i];
		GSIO_CHECK((j->name = gsioi_arena_strdup(s->arena, h->name, err)));
		j->parent = h->parent;
		md5_quat q = quat_from_xyz(b->orient);
		memcpy(j->translation, b->pos, sizeof(j->translation));
		quat_store(q, j->rotation);
		double p[3] = {b->pos[0], b->pos[1], b->pos[2]};
		if (h->parent < 0) {
			wq[i] = q;
			memcpy(&wt[3 * i], p, sizeof(p));
		} else {
			size_t pi = (size_t)h->parent;
			double r[3];
			quat_rotate(wq[pi], p, r);
			for (int k = 0; k < 3; k++) wt[3 * i + (size_t)k] = wt[3 * pi + (size_t)k] + r[k];
			wq[i] = canonical(quat_mul(wq[pi], q));
		}
		for (int k = 0; k < 3; k++) j->world_translation[k] = (float)wt[3 * i + (size_t)k];
		quat_store(wq[i], j->world_rotation);
	}
	return true;
}

// -- Scene: meshes

typedef struct md5_sortkey {
	float p[3];
	uint32_t v;
} md5_sortkey;

static int cmp_sortkey(const void *pa, const void *pb)
{
	const md5_sortkey *a = pa, *b = pb;
	for (int k = 0; k < 3; k++) {
		if (a->p[k] < b->p[k]) return -1;
		if (a->p[k] > b->p[k]) return 1;
	}
	return a->v < b->v ? -1 : a->v > b->v;
}

// Smooth normals from the (already counter-clockwise) triangles: each face
// adds its cross product (twice its area, so big faces count more) to its
// corners; vertices at the same position pool their sums so a UV seam does
// not show as a crease. Returns the number of vertices left without a
// normal (no triangle with area uses them), which get +Z.
static bool mesh_normals(gsio_scene *s, gsio_mesh *mesh, size_t *degenerate, gsio_error *err)
{
	size_t nv = mesh->vertex_count;
	double *acc = GSIO_NEW_ARRAY(s->arena, double, 3 * nv, err);
	md5_sortkey *keys = GSIO_NEW_ARRAY(s->arena, md5_sortkey, nv, err);
	mesh->normals = GSIO_NEW_ARRAY(s->arena, float, 3 * nv, err);
	GSIO_CHECK(acc && keys && mesh->normals);
	const float *p = mesh->positions;
	for (size_t t = 0; t + 2 < mesh->index_count; t += 3) {
		uint32_t a = mesh->indices[t], b = mesh->indices[t + 1], c = mesh->indices[t + 2];
		double e1[3], e2[3];
		for (int k = 0; k < 3; k++) {
			e1[k] = (double)p[3 * b + (uint32_t)k] - p[3 * a + (uint32_t)k];
			e2[k] = (double)p[3 * c + (uint32_t)k] - p[3 * a + (uint32_t)k];
		}
		double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
		               e1[0] * e2[1] - e1[1] * e2[0]};
		for (int k = 0; k < 3; k++) {
			acc[3 * a + (uint32_t)k] += n[k];
			acc[3 * b + (uint32_t)k] += n[k];
			acc[3 * c + (uint32_t)k] += n[k];
		}
	}
	for (size_t v = 0; v < nv; v++) {
		memcpy(keys[v].p, &p[3 * v], sizeof(keys[v].p));
		keys[v].v = (uint32_t)v;
	}
	if (nv > 1) qsort(keys, nv, sizeof(*keys), cmp_sortkey);
	for (size_t g = 0; g < nv;) {
		size_t e = g + 1;
		while (e < nv && !memcmp(keys[e].p, keys[g].p, sizeof(keys[g].p))) e++;
		double sum[3] = {0, 0, 0};
		for (size_t i = g; i < e; i++)
			for (int k = 0; k < 3; k++) sum[k] += acc[3 * keys[i].v + (uint32_t)k];
		double len = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
		for (size_t i = g; i < e; i++) {
			float *n = &mesh->normals[3 * keys[i].v];
			if (len > 0.0 && isfinite(len)) {
				for (int k = 0; k < 3; k++) n[k] = (float)(sum[k] / len);
			} else {
				n[0] = n[1] = 0.0f;
				n[2] = 1.0f;
				(*degenerate)++;
			}
		}
		g = e;
	}
	return true;
}

static bool build_mesh(gsio_scene *s, const gsio_md5_mesh *m, size_t mi, const md5_quat *jq,
                       size_t *degenerate, gsio_error *err)
{
	const gsio_md5_submesh *sm = &m->meshes[mi];
	gsio_mesh *mesh = &s->meshes[mi];
	gsio_arena *a = s->arena;
	char name[32];
	snprintf(name, sizeof(name), "mesh%zu", mi);
	GSIO_CHECK((mesh->name = gsioi_arena_strdup(a, name, err)));
	mesh->material = (int32_t)mi;
	size_t nv = sm->verts_count;
	mesh->vertex_count = nv;
	size_t total = 0;
	for (size_t v = 0; v < nv; v++) total += sm->verts[v].count; // each <= weights_count
	if (total > UINT32_MAX) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1,
		          "mesh %zu: %zu vertex weights in all are more than gsio can index", mi, total);
		return false;
	}
	mesh->positions = GSIO_NEW_ARRAY(a, float, 3 * nv, err);
	mesh->uvs = GSIO_NEW_ARRAY(a, float, 2 * nv, err);
	mesh->weights.offsets = GSIO_NEW_ARRAY(a, uint32_t, nv + 1, err);
	mesh->weights.joints = GSIO_NEW_ARRAY(a, uint32_t, total, err);
	mesh->weights.values = GSIO_NEW_ARRAY(a, float, total, err);
	mesh->index_count = 3 * sm->tris_count;
	mesh->indices = GSIO_NEW_ARRAY(a, uint32_t, mesh->index_count, err);
	GSIO_CHECK(mesh->positions && mesh->uvs && mesh->weights.offsets && mesh->weights.joints &&
	           mesh->weights.values && mesh->indices);
	mesh->weights.count = total;
	size_t w_out = 0;
	for (size_t v = 0; v < nv; v++) {
		const gsio_md5_vert *mv = &sm->verts[v];
		double pos[3] = {0, 0, 0};
		mesh->weights.offsets[v] = (uint32_t)w_out;
		for (uint32_t k = 0; k < mv->count; k++) {
			const gsio_md5_weight *w = &sm->weights[mv->start + k];
			const gsio_md5_joint *j = &m->joints[w->joint];
			double wp[3] = {w->pos[0], w->pos[1], w->pos[2]}, r[3];
			quat_rotate(jq[w->joint], wp, r);
			for (int c = 0; c < 3; c++) pos[c] += (double)w->bias * ((double)j->pos[c] + r[c]);
			mesh->weights.joints[w_out] = w->joint;
			mesh->weights.values[w_out] = w->bias;
			w_out++;
		}
		for (int c = 0; c < 3; c++) {
			if (!(fabs(pos[c]) <= FLT_MAX)) {
				GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, -1,
				          "mesh %zu, vert %zu: the weights put the vertex beyond float range",
				          mi, v);
				return false;
			}
			mesh->positions[3 * v + (size_t)c] = (float)pos[c];
		}
		mesh->uvs[2 * v] = mv->st[0];
		mesh->uvs[2 * v + 1] = mv->st[1];
	}
	mesh->weights.offsets[nv] = (uint32_t)w_out;
	// Stored clockwise (Doom 3's front faces, FORMATS.md): reverse.
	for (size_t t = 0; t < sm->tris_count; t++) {
		mesh->indices[3 * t + 0] = sm->tris[t].v[0];
		mesh->indices[3 * t + 1] = sm->tris[t].v[2];
		mesh->indices[3 * t + 2] = sm->tris[t].v[1];
	}
	for (int c = 0; c < 3; c++) mesh->bbox_min[c] = mesh->bbox_max[c] = 0.0f;
	for (size_t v = 0; v < nv; v++)
		for (int c = 0; c < 3; c++) {
			float x = mesh->positions[3 * v + (size_t)c];
			if (v == 0 || x < mesh->bbox_min[c]) mesh->bbox_min[c] = x;
			if (v == 0 || x > mesh->bbox_max[c]) mesh->bbox_max[c] = x;
		}
	return mesh_normals(s, mesh, degenerate, err);
}

// -- Scene: sibling files

// Reads a sibling through opts->io, else stdio. 0 on success. The caller
// frees with free_sibling().
static int read_sibling(const gsio_opts *opts, const char *path, uint8_t **data, size_t *size,
                        gsio_error *err)
{
	if (opts && opts->io && opts->io->read_file)
		return opts->io->read_file(opts->io->user, path, data, size, err);
	return gsio_read_whole_file(path, data, size, opts ? opts->memory_limit : 0, err);
}

static void free_sibling(const gsio_opts *opts, uint8_t *data)
{
	if (!data) return;
	if (opts && opts->io && opts->io->read_file) {
		if (opts->io->free_data) opts->io->free_data(opts->io->user, data);
	} else {
		free(data);
	}
}

// The folder part of path, with its trailing separator ("" for none).
static size_t dir_len(const char *path)
{
	return path ? (size_t)(gsioi_path_base(path) - path) : 0;
}

#define MD5_PATH_MAX 1024

// "dir" + rel into buf; false when it does not fit.
static bool join_path(char *buf, const char *path, size_t dlen, const char *rel)
{
	size_t rl = strlen(rel);
	if (dlen + rl + 1 > MD5_PATH_MAX) return false;
	memcpy(buf, path, dlen);
	memcpy(buf + dlen, rel, rl + 1);
	return true;
}

// Normalises a shader path to a relative path inside the model's folder:
// '\' becomes '/', "." and empty parts go, ".." removes the part before it.
// 1: ok; 0: absolute or leaves the folder; -1: too long.
static int normalise_relative(const char *in, char out[MD5_PATH_MAX])
{
	size_t n = strlen(in);
	if (n >= MD5_PATH_MAX) return -1;
	char tmp[MD5_PATH_MAX];
	for (size_t i = 0; i <= n; i++) tmp[i] = in[i] == '\\' ? '/' : in[i];
	if (tmp[0] == '/' || (n >= 2 && tmp[1] == ':')) return 0; // /x, //server, C:
	size_t o = 0;
	char *save = tmp;
	while (*save) {
		char *part = save;
		char *slash = strchr(part, '/');
		if (slash) {
			*slash = 0;
			save = slash + 1;
		} else {
			save = part + strlen(part);
		}
		if (!*part || !strcmp(part, ".")) continue;
		if (!strcmp(part, "..")) {
			if (o == 0) return 0;
			while (o > 0 && out[o - 1] != '/') o--;
			if (o > 0) o--; // the separator too
			continue;
		}
		size_t pl = strlen(part);
		if (o) out[o++] = '/';
		memcpy(out + o, part, pl);
		o += pl;
	}
	out[o] = 0;
	return 1;
}

typedef struct md5_candidates {
	char paths[12][MD5_PATH_MAX];
	size_t count;
} md5_candidates;

// rel, then rel with each texture extension instead of (or added to) its own.
static void add_candidates(md5_candidates *c, const char *path, size_t dlen, const char *rel)
{
	static const char *const exts[] = {".tga", ".png", ".jpg"};
	if (!*rel) return;
	const char *base = gsioi_path_base(rel);
	const char *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - rel) : strlen(rel);
	if (c->count < 12 && join_path(c->paths[c->count], path, dlen, rel)) c->count++;
	for (size_t e = 0; e < 3; e++) {
		if (dot && dot != base && !strcasecmp(dot, exts[e])) continue;
		char buf[MD5_PATH_MAX];
		if (stem + 5 > MD5_PATH_MAX) return;
		memcpy(buf, rel, stem);
		memcpy(buf + stem, exts[e], 5);
		if (c->count < 12 && join_path(c->paths[c->count], path, dlen, buf)) c->count++;
	}
}

// The index of the image loaded from file, -1 when none yet.
static int32_t find_image(const gsio_scene *s, const char *file)
{
	for (size_t i = 0; i < s->images_count; i++)
		if (s->images[i].source_path && !strcmp(s->images[i].source_path, file))
			return (int32_t)i;
	return -1;
}

// Finds, reads and decodes the texture of one shader. A missing or broken
// texture is a warning; false only when the scene itself fails (memory).
static bool resolve_texture(gsio_scene *s, gsio_material *mat, const char *shader,
                            const char *path, const gsio_opts *opts, gsio_error *err)
{
	if (!*shader) return true; // no shader: an untextured mesh
	if (!path)
		return gsioi_scene_warn(s, err, "shader \"%.200s\": no file name to look beside", shader);
	size_t dlen = dir_len(path);
	md5_candidates *c = gsioi_arena_alloc(s->arena, sizeof(*c), err);
	GSIO_CHECK(c);
	char rel[MD5_PATH_MAX];
	int ok = normalise_relative(shader, rel);
	if (ok == 1) {
		add_candidates(c, path, dlen, rel);
		if (strchr(rel, '/')) add_candidates(c, path, dlen, gsioi_path_base(rel));
	} else {
		GSIO_CHECK(gsioi_scene_warn(
		    s, err,
		    ok == 0 ? "shader \"%.200s\" is an absolute path or leaves the model's folder: "
		              "refused; only its base name is looked for beside the model"
		            : "shader \"%.200s\" is too long: refused",
		    shader));
		if (ok == 0) {
			char tmp[MD5_PATH_MAX];
			snprintf(tmp, sizeof(tmp), "%s", gsioi_path_base(shader));
			const char *b = tmp;
			if (strcmp(b, "..") && strcmp(b, ".")) add_candidates(c, path, dlen, b);
		}
	}
	for (size_t i = 0; i < c->count; i++) {
		int32_t known = find_image(s, c->paths[i]);
		if (known >= 0) {
			mat->base_color_image = known;
			return true;
		}
		uint8_t *data = NULL;
		size_t size = 0;
		gsio_error sub;
		gsio_error_clear(&sub);
		if (read_sibling(opts, c->paths[i], &data, &size, &sub)) continue;
		gsio_image im = {0};
		gsio_error_clear(&sub);
		bool decoded = gsioi_image_file_decode(data, size, c->paths[i], s->arena, &im, &sub);
		free_sibling(opts, data);
		if (!decoded) {
			if (sub.code == GSIO_ERR_NOMEM || sub.code == GSIO_ERR_LIMIT) {
				GSIO_FAIL(err, sub.code, c->paths[i], -1, "%s", sub.message);
				return false;
			}
			return gsioi_scene_warn(s, err, "texture %.300s: %.150s: no image", c->paths[i],
			                       sub.message);
		}
		gsio_image *imgs = GSIO_NEW_ARRAY(s->arena, gsio_image, s->images_count + 1, err);
		GSIO_CHECK(imgs);
		if (s->images_count) memcpy(imgs, s->images, s->images_count * sizeof(*imgs));
		im.source_type = -1;
		im.source_format = GSIO_PIXEL_RGBA8888;
		GSIO_CHECK((im.source_path = gsioi_arena_strdup(s->arena, c->paths[i], err)));
		GSIO_CHECK((im.name = gsioi_arena_strdup(s->arena, gsioi_path_base(c->paths[i]), err)));
		imgs[s->images_count] = im;
		mat->base_color_image = (int32_t)s->images_count;
		s->images = imgs;
		s->images_count++;
		return true;
	}
	if (ok != 1 && c->count == 0) return true; // refused, nothing left to try (warned)
	return gsioi_scene_warn(s, err, "shader \"%.200s\": no texture found (tried %zu names from %.200s)",
	                       shader, c->count, c->count ? c->paths[0] : "nothing");
}

// -- Scene: animations

// Adds the frames of anim to s (joints already match).
static bool add_anim(gsio_scene *s, const gsio_md5_anim *a, const char *name, gsio_error *err)
{
	gsio_arena *ar = s->arena;
	gsio_skel_anim *list =
	    GSIO_NEW_ARRAY(ar, gsio_skel_anim, s->animations_count + 1, err);
	GSIO_CHECK(list);
	if (s->animations_count) memcpy(list, s->animations, s->animations_count * sizeof(*list));
	gsio_skel_anim *out = &list[s->animations_count];
	size_t nf = a->frames_count, nj = a->joints_count;
	GSIO_CHECK((out->name = gsioi_arena_strdup(ar, name, err)));
	out->fps = a->frame_rate;
	out->frames_count = nf;
	out->joints_count = nj;
	size_t fj;
	if (!gsioi_mul_size(nf, nj, &fj)) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, name, -1, "%zu frames x %zu joints overflow", nf, nj);
		return false;
	}
	out->translations = gsioi_arena_array(ar, fj, 3 * sizeof(float), err);
	out->rotations = gsioi_arena_array(ar, fj, 4 * sizeof(float), err);
	out->bounds = GSIO_NEW_ARRAY(ar, float, 6 * nf, err);
	GSIO_CHECK(out->translations && out->rotations && out->bounds);
	for (size_t f = 0; f < nf; f++) {
		const float *comp = a->frames + f * a->components_count;
		for (size_t j = 0; j < nj; j++) {
			const gsio_md5_hierarchy *h = &a->hierarchy[j];
			float v[6];
			memcpy(v, a->baseframe[j].pos, 3 * sizeof(float));
			memcpy(v + 3, a->baseframe[j].orient, 3 * sizeof(float));
			// Flag bits 1..32 replace Tx, Ty, Tz, Qx, Qy, Qz in that order.
			size_t k = h->start_index;
			for (int b = 0; b < 6; b++)
				if (h->flags & (1u << b)) v[b] = comp[k++];
			float *t = &out->translations[3 * (f * nj + j)];
			memcpy(t, v, 3 * sizeof(float));
			quat_store(quat_from_xyz(v + 3), &out->rotations[4 * (f * nj + j)]);
		}
		memcpy(&out->bounds[6 * f], a->bounds[f].min, 3 * sizeof(float));
		memcpy(&out->bounds[6 * f + 3], a->bounds[f].max, 3 * sizeof(float));
	}
	s->animations = list;
	s->animations_count++;
	return true;
}

int gsio_md5_scene_add_anim(gsio_scene *scene, const gsio_md5_mesh *mesh,
                            const gsio_md5_anim *anim, const char *name, gsio_error *err)
{
	if (!anim_valid(anim, err) || gsio_md5_anim_check(mesh, anim, name, err)) return -1;
	return add_anim(scene, anim, name ? name : "anim", err) ? 0 : -1;
}

// The file name without folder and extension, in the scene's arena.
static char *stem_of(gsio_scene *s, const char *path, const char *fallback, gsio_error *err)
{
	if (!path) return gsioi_arena_strdup(s->arena, fallback, err);
	const char *b = gsioi_path_base(path);
	const char *dot = strrchr(b, '.');
	return gsioi_arena_strndup(s->arena, b, dot && dot != b ? (size_t)(dot - b) : strlen(b), err);
}

// Adds one animation file's bytes. required: failures are errors
// (anim_paths); otherwise they are warnings and the file is skipped.
static bool load_anim_data(gsio_scene *s, const gsio_md5_mesh *m, const char *file,
                           const uint8_t *data, size_t size, bool required,
                           const gsio_opts *opts, gsio_error *err)
{
	gsio_error sub;
	gsio_error_clear(&sub);
	gsio_md5_anim *a = gsio_md5_anim_decode(data, size, file, opts, &sub);
	bool ok = a != NULL;
	if (ok && gsio_md5_anim_check(m, a, file, &sub)) ok = false;
	if (!ok) {
		gsio_md5_anim_free(a);
		if (required || sub.code == GSIO_ERR_NOMEM) {
			*err = sub;
			return false;
		}
		char text[400];
		gsio_error_format(&sub, text, sizeof(text));
		return gsioi_scene_warn(s, err, "animation skipped: %s", text);
	}
	char *name = stem_of(s, file, "anim", err);
	bool added = name && add_anim(s, a, name, err);
	gsio_md5_anim_free(a);
	return added;
}

// Reads and adds one animation file; a file that cannot be read is an error
// when required, else a warning (silent_missing: not even that).
static bool load_anim_file(gsio_scene *s, const gsio_md5_mesh *m, const char *file,
                           bool required, bool silent_missing, const gsio_opts *opts,
                           gsio_error *err)
{
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (read_sibling(opts, file, &data, &size, &sub)) {
		if (required) {
			*err = sub;
			return false;
		}
		if (silent_missing) return true;
		return gsioi_scene_warn(s, err, "animation %.300s: %.150s", file, sub.message);
	}
	bool ok = load_anim_data(s, m, file, data, size, required, opts, err);
	free_sibling(opts, data);
	return ok;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_anim_ext(const char *name)
{
	size_t n = strlen(name);
	return n > 8 && !strcasecmp(name + n - 8, ".md5anim");
}

// Every *.md5anim in the mesh's folder, sorted (stdio only: gsio_io cannot
// list a folder, so with a custom io only the mesh's own name is tried).
static bool load_sibling_anims(gsio_scene *s, const gsio_md5_mesh *m, const char *path,
                               const gsio_opts *opts, gsio_error *err)
{
	size_t dlen = dir_len(path);
	char file[MD5_PATH_MAX];
	bool custom_io = opts && opts->io && opts->io->read_file;
#ifndef _WIN32
	if (!custom_io) {
		char dir[MD5_PATH_MAX];
		if (dlen + 2 > MD5_PATH_MAX) return true;
		if (dlen) {
			memcpy(dir, path, dlen);
			dir[dlen] = 0;
		} else {
			memcpy(dir, ".", 2);
		}
		DIR *d = opendir(dir);
		if (!d) return gsioi_scene_warn(s, err, "cannot list %.300s for animations", dir);
		char **names = NULL;
		size_t n = 0, cap = 0;
		bool ok = true;
		struct dirent *e;
		while (ok && (e = readdir(d))) {
			if (!has_anim_ext(e->d_name)) continue;
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 8;
				char **nn = realloc(names, ncap * sizeof(*nn));
				if (!nn) {
					ok = false;
					break;
				}
				names = nn;
				cap = ncap;
			}
			if (!(names[n] = malloc(strlen(e->d_name) + 1))) {
				ok = false;
				break;
			}
			strcpy(names[n++], e->d_name);
		}
		closedir(d);
		if (!ok) GSIO_FAIL(err, GSIO_ERR_NOMEM, path, -1, "out of memory listing animations");
		if (ok && n > 1) qsort(names, n, sizeof(*names), cmp_cstr);
		for (size_t i = 0; ok && i < n; i++)
			if (join_path(file, path, dlen, names[i]))
				ok = load_anim_file(s, m, file, false, false, opts, err);
		for (size_t i = 0; i < n; i++) free(names[i]);
		free(names);
		return ok;
	}
#endif
	// Only "<mesh base name>.md5anim"; absent is not worth a warning.
	const char *b = gsioi_path_base(path);
	const char *dot = strrchr(b, '.');
	size_t stem = dot && dot != b ? (size_t)(dot - path) : strlen(path);
	if (stem + 9 > MD5_PATH_MAX) return true;
	memcpy(file, path, stem);
	memcpy(file + stem, ".md5anim", 9);
	return load_anim_file(s, m, file, false, true, opts, err);
}

// -- Scene: entry points

gsio_scene *gsio_md5_mesh_to_scene(const gsio_md5_mesh *m, const char *path,
                                   const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	s->format = "MD5";
	s->format_version = m->version;
	if (!mesh_valid(m, err) || !joints_from_mesh(s, m, err)) goto fail;
	md5_quat *jq = GSIO_NEW_ARRAY(s->arena, md5_quat, m->joints_count, err);
	s->meshes = GSIO_NEW_ARRAY(s->arena, gsio_mesh, m->meshes_count, err);
	s->materials = GSIO_NEW_ARRAY(s->arena, gsio_material, m->meshes_count, err);
	if (!jq || !s->meshes || !s->materials) goto fail;
	for (size_t j = 0; j < m->joints_count; j++) jq[j] = quat_from_xyz(m->joints[j].orient);
	s->meshes_count = m->meshes_count;
	s->materials_count = m->meshes_count;
	size_t degenerate = 0;
	for (size_t i = 0; i < m->meshes_count; i++) {
		const gsio_md5_submesh *sm = &m->meshes[i];
		s->source.vertices += sm->verts_count;
		s->source.triangles += sm->tris_count;
		if (!build_mesh(s, m, i, jq, &degenerate, err)) goto fail;
		gsio_material *mat = &s->materials[i];
		char name[32];
		snprintf(name, sizeof(name), "material%zu", i);
		mat->name = gsioi_arena_strdup(s->arena, *sm->shader ? sm->shader : name, err);
		mat->shader = gsioi_arena_strdup(s->arena, sm->shader, err);
		if (!mat->name || !mat->shader) goto fail;
		mat->base_color_image = -1;
		mat->detail_image = -1;
		mat->detail_tiling = 1.0f;
		for (int k = 0; k < 4; k++) mat->base_color[k] = 1.0f;
		if (!resolve_texture(s, mat, sm->shader, path, opts, err)) goto fail;
	}
	if (degenerate && !gsioi_scene_warn(s, err,
	                                   "%zu vertices touch no triangle with area: their normal "
	                                   "is +Z",
	                                   degenerate))
		goto fail;
	if (!(opts && (opts->flags & GSIO_OPT_NO_ANIMATION))) {
		if (opts && opts->anim_paths_count) {
			for (size_t i = 0; i < opts->anim_paths_count; i++)
				if (!load_anim_file(s, m, opts->anim_paths[i], true, false, opts, err))
					goto fail;
		} else if (path) {
			if (!load_sibling_anims(s, m, path, opts, err)) goto fail;
		}
	}
	return s;
fail:
	gsio_scene_free(s);
	return NULL;
}

gsio_scene *gsio_md5_anim_to_scene(const gsio_md5_anim *a, const char *path,
                                   const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	s->format = "MD5";
	s->format_version = a->version;
	if (!anim_valid(a, err) || !joints_from_anim(s, a, err)) goto fail;
	if (!(opts && (opts->flags & GSIO_OPT_NO_ANIMATION))) {
		char *name = stem_of(s, path, "anim", err);
		if (!name || !add_anim(s, a, name, err)) goto fail;
	}
	return s;
fail:
	gsio_scene_free(s);
	return NULL;
}

gsio_scene *gsio_md5_camera_to_scene(const gsio_md5_camera *c, const char *path,
                                     const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	s->format = "MD5";
	s->format_version = c->version;
	gsio_arena *a = s->arena;
	if (!camera_valid(c, err)) goto fail;
	bool one = opts && (opts->flags & GSIO_OPT_NO_ANIMATION);
	size_t nf = one ? 1 : c->frames_count;
	gsio_camera *cam = s->cameras = GSIO_NEW_ARRAY(a, gsio_camera, 1, err);
	if (!cam) goto fail;
	s->cameras_count = 1;
	if (!(cam->name = stem_of(s, path, "camera", err))) goto fail;
	cam->fps = c->frame_rate;
	cam->frames_count = nf;
	cam->positions = GSIO_NEW_ARRAY(a, float, 3 * nf, err);
	cam->rotations = GSIO_NEW_ARRAY(a, float, 4 * nf, err);
	cam->fov = GSIO_NEW_ARRAY(a, float, nf, err);
	cam->cuts = GSIO_NEW_ARRAY(a, uint32_t, c->cuts_count, err);
	if (!cam->positions || !cam->rotations || !cam->fov || !cam->cuts) goto fail;
	for (size_t i = 0; i < nf; i++) {
		memcpy(&cam->positions[3 * i], c->frames[i].pos, 3 * sizeof(float));
		quat_store(quat_from_xyz(c->frames[i].orient), &cam->rotations[4 * i]);
		cam->fov[i] = c->frames[i].fov;
	}
	for (size_t i = 0; i < c->cuts_count; i++)
		if (c->cuts[i] < nf) cam->cuts[cam->cuts_count++] = c->cuts[i];
	return s;
fail:
	gsio_scene_free(s);
	return NULL;
}

// -- Importer

static int md5_can_read(const uint8_t *head, size_t n, const char *ext)
{
	if (head && n) {
		size_t skip = bom_size(head, n);
		gsioi_tokenizer t;
		gsioi_tokenizer_init(&t, (const char *)head + skip, n - skip, NULL, "{}()", NULL);
		gsioi_token tok;
		if (gsioi_tok_next(&t, &tok) && gsioi_token_is(&tok, "MD5Version")) return 2;
	}
	if (ext && (!strcmp(ext, "md5mesh") || !strcmp(ext, "md5anim") || !strcmp(ext, "md5camera")))
		return 1;
	return 0;
}

static gsio_scene *md5_read(const uint8_t *data, size_t size, const char *path,
                            const gsio_opts *opts, gsio_error *err)
{
	gsio_md5_kind kind = gsio_md5_detect(data, size);
	if (kind == GSIO_MD5_UNKNOWN) {
		// The header does not say: the extension decides, and the parser
		// then reports what is wrong with the text.
		char ext[16];
		gsioi_path_ext(path, ext, sizeof(ext));
		kind = !strcmp(ext, "md5anim")     ? GSIO_MD5_ANIM
		       : !strcmp(ext, "md5camera") ? GSIO_MD5_CAMERA
		                                   : GSIO_MD5_MESH;
	}
	gsio_scene *s = NULL;
	if (kind == GSIO_MD5_ANIM) {
		gsio_md5_anim *a = gsio_md5_anim_decode(data, size, path, opts, err);
		if (a) s = gsio_md5_anim_to_scene(a, path, opts, err);
		gsio_md5_anim_free(a);
	} else if (kind == GSIO_MD5_CAMERA) {
		gsio_md5_camera *c = gsio_md5_camera_decode(data, size, path, opts, err);
		if (c) s = gsio_md5_camera_to_scene(c, path, opts, err);
		gsio_md5_camera_free(c);
	} else {
		gsio_md5_mesh *m = gsio_md5_mesh_decode(data, size, path, opts, err);
		if (m) s = gsio_md5_mesh_to_scene(m, path, opts, err);
		gsio_md5_mesh_free(m);
	}
	return s;
}

const gsio_importer gsio_md5_importer = {
    "id Software MD5", "md5mesh md5anim md5camera", GSIO_MD5_VERSION, GSIO_MD5_VERSION,
    md5_can_read, md5_read,
};
