/* WMP text dialects A (A4, planes) and B (WED 6/7, `version 710`): parsed
 * with the shared tokenizer into the element model of gsio_wmp.h, and
 * dialect B written back the way WED writes it (CRLF, tabs, numbers as C's
 * "%f" with the trailing zeros cut, flag bit strings of their stored width),
 * so a decoded corpus file encodes to the same bytes.
 *
 * Grammar: docs/FORMATS.md §7.3 (A) and §7.4 (B). `<...>` is one
 * token (file names with spaces, ':' and backslashes). Elements and objects
 * are numbered; gsio requires each kind's numbers in file order (0, 1, ...),
 * as every known file has them, and resolves the references at the end.
 * Elements of unknown grammar (B's entities are documented nowhere) are kept
 * verbatim and written back. */
#include "gsioi_tokenizer.h"
#include "wmp_internal.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// -- Parsing helpers

typedef struct tctx {
	gsioi_tokenizer t;
	gsio_wmp_file *f;
	const char *name;
	gsio_error *err;
	size_t cap_objects, cap_levels, cap_blocks, cap_lights, cap_unknown, cap_wads;
	// Entity numbers are shared by every entity kind (A: level 0, light 1).
	gsio_wmp_ref *ents;
	size_t ents_count, cap_ents;
} tctx;

static bool next(tctx *c, gsioi_token *tok)
{
	return gsioi_tok_next(&c->t, tok);
}

static bool fail_tok(tctx *c, const gsioi_token *at, gsio_error_code code, const char *what)
{
	return gsioi_tok_fail(&c->t, at, code, true, "%s", what);
}

static bool number(tctx *c, const char *what, double *out)
{
	gsioi_token tok;
	GSIO_CHECK(next(c, &tok));
	if (tok.kind == GSIO_TOKEN_WORD && gsioi_parse_double(tok.text, tok.len, out)) return true;
	char msg[80];
	snprintf(msg, sizeof(msg), "expected %s (a number)", what);
	return fail_tok(c, &tok, tok.kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED : GSIO_ERR_SYNTAX, msg);
}

static bool punct(tctx *c, char ch)
{
	return gsioi_tok_expect_punct(&c->t, ch);
}

static bool peek_is_punct(tctx *c, char ch, bool *yes)
{
	gsioi_token tok;
	GSIO_CHECK(gsioi_tok_peek(&c->t, &tok));
	*yes = tok.kind == GSIO_TOKEN_PUNCT && tok.text[0] == ch;
	return true;
}

/* After a '<' token: the text up to '>' on the same line, as one string. */
static bool angle_rest(tctx *c, const gsioi_token *open, gsio_wmp_string *out)
{
	gsioi_tokenizer *t = &c->t;
	size_t p = t->pos;
	while (p < t->size && t->data[p] != '>' && t->data[p] != '\n' && t->data[p] != '\r') p++;
	if (p >= t->size || t->data[p] != '>')
		return fail_tok(c, open, GSIO_ERR_SYNTAX, "a '<' name is not closed by '>' on its line");
	GSIO_CHECK((out->s = gsioi_arena_strndup(c->f->arena, t->data + t->pos, p - t->pos, c->err)));
	t->pos = p + 1;
	return true;
}

static bool angle_name(tctx *c, gsio_wmp_string *out)
{
	gsioi_token tok;
	GSIO_CHECK(next(c, &tok));
	if (tok.kind != GSIO_TOKEN_PUNCT || tok.text[0] != '<')
		return fail_tok(c, &tok, tok.kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED : GSIO_ERR_SYNTAX,
		                "expected a <file name>");
	return angle_rest(c, &tok, out);
}

static bool word(tctx *c, const char *what, gsio_wmp_string *out)
{
	gsioi_token tok;
	GSIO_CHECK(next(c, &tok));
	if (tok.kind != GSIO_TOKEN_WORD) {
		char msg[80];
		snprintf(msg, sizeof(msg), "expected %s", what);
		return fail_tok(c, &tok, tok.kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED : GSIO_ERR_SYNTAX,
		                msg);
	}
	GSIO_CHECK((out->s = gsioi_arena_strndup(c->f->arena, tok.text, tok.len, c->err)));
	return true;
}

/* A flag word: binary digits, most significant first, at most 32. */
static bool flag_bits(tctx *c, uint32_t *v, uint8_t *digits)
{
	gsioi_token tok;
	GSIO_CHECK(next(c, &tok));
	bool ok = tok.kind == GSIO_TOKEN_WORD && tok.len >= 1 && tok.len <= 32;
	uint32_t x = 0;
	for (size_t i = 0; ok && i < tok.len; i++) {
		if (tok.text[i] != '0' && tok.text[i] != '1') ok = false;
		x = (x << 1) | (uint32_t)(tok.text[i] - '0');
	}
	if (!ok)
		return fail_tok(c, &tok, tok.kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED : GSIO_ERR_SYNTAX,
		                "expected flags (up to 32 binary digits)");
	*v = x;
	*digits = (uint8_t)tok.len;
	return true;
}

static bool uint_tok(tctx *c, const char *what, uint32_t max, uint32_t *out)
{
	int64_t v;
	GSIO_CHECK(gsioi_tok_int(&c->t, what, 0, max, &v, NULL));
	*out = (uint32_t)v;
	return true;
}

static bool vec3(tctx *c, const char *what, double v[3])
{
	GSIO_CHECK(punct(c, '('));
	for (int i = 0; i < 3; i++) GSIO_CHECK(number(c, what, &v[i]));
	return punct(c, ')');
}

/* Skips a `{ ... }` group whose '{' was just read, nesting included. */
static bool skip_group(tctx *c, const gsioi_token *open)
{
	unsigned depth = 1;
	while (depth) {
		gsioi_token tok;
		GSIO_CHECK(next(c, &tok));
		if (tok.kind == GSIO_TOKEN_EOF)
			return fail_tok(c, open, GSIO_ERR_TRUNCATED, "this '{' is never closed");
		if (tok.kind != GSIO_TOKEN_PUNCT) continue;
		if (tok.text[0] == '{') {
			if (++depth > GSIO_WMP_MAX_DEPTH)
				return fail_tok(c, &tok, GSIO_ERR_LIMIT, "braces nest too deep");
		} else if (tok.text[0] == '}') {
			depth--;
		} else if (tok.text[0] == '<') {
			gsio_wmp_string tmp;
			GSIO_CHECK(angle_rest(c, &tok, &tmp));
		}
	}
	return true;
}

/* Each kind's elements must be numbered 0, 1, ... in file order. */
static bool expect_number(tctx *c, size_t expected, const char *what)
{
	gsioi_token at;
	int64_t v;
	GSIO_CHECK(gsioi_tok_int(&c->t, what, 0, INT32_MAX, &v, &at));
	if ((size_t)v != expected) {
		char msg[120];
		snprintf(msg, sizeof(msg), "%s %lld is out of order (gsio expects %zu here)", what,
		         (long long)v, expected);
		return fail_tok(c, &at, GSIO_ERR_UNSUPPORTED, msg);
	}
	return true;
}

static bool add_entity_number(tctx *c, gsio_wmp_kind kind, size_t index)
{
	GSIO_CHECK(GSIOI_WMP_PUSH(c->f->arena, c->ents, c->ents_count, c->cap_ents, c->err));
	c->ents[c->ents_count].kind = kind;
	c->ents[c->ents_count++].index = (uint32_t)index;
	return true;
}

// -- Parsing: sections

static bool parse_wed(tctx *c, const gsioi_token *kw)
{
	gsio_wmp_file *f = c->f;
	const char *start = kw->text;
	GSIO_CHECK(punct(c, '{'));
	for (;;) {
		gsioi_token tok;
		GSIO_CHECK(next(c, &tok));
		if (tok.kind == GSIO_TOKEN_PUNCT && tok.text[0] == '}') break;
		if (tok.kind == GSIO_TOKEN_EOF) return fail_tok(c, kw, GSIO_ERR_TRUNCATED, "wed is never closed");
		if (gsioi_token_is(&tok, "palette")) {
			GSIO_CHECK(punct(c, '{'));
			size_t n = 0;
			for (;;) {
				gsioi_token h;
				GSIO_CHECK(next(c, &h));
				if (h.kind == GSIO_TOKEN_PUNCT && h.text[0] == '}') break;
				unsigned v = 0;
				bool ok = h.kind == GSIO_TOKEN_WORD && h.len >= 1 && h.len <= 2;
				for (size_t i = 0; ok && i < h.len; i++) {
					char d = h.text[i];
					int x = d >= '0' && d <= '9' ? d - '0' : d >= 'a' && d <= 'f' ? d - 'a' + 10
					                                 : d >= 'A' && d <= 'F' ? d - 'A' + 10 : -1;
					if (x < 0) ok = false;
					v = v * 16 + (unsigned)(x < 0 ? 0 : x);
				}
				// The A4 manual's example palette is garbled ("abb"): only a
				// complete 768-byte palette is used, anything else is skipped.
				if (ok && n < 768) f->palette[n] = (uint8_t)v;
				if (!ok && h.kind == GSIO_TOKEN_EOF)
					return fail_tok(c, &h, GSIO_ERR_TRUNCATED, "the palette is never closed");
				n++;
			}
			f->has_palette = n == 768;
		} else if (gsioi_token_is(&tok, "wad")) {
			GSIO_CHECK(punct(c, '{'));
			f->has_wad_section = true;
			size_t heads = 0;
			for (;;) {
				gsioi_token h;
				GSIO_CHECK(next(c, &h));
				if (h.kind == GSIO_TOKEN_PUNCT && h.text[0] == '}') break;
				if (h.kind == GSIO_TOKEN_PUNCT && h.text[0] == '<') {
					GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, f->wads, f->wads_count, c->cap_wads, c->err));
					gsio_wmp_wad *w = &f->wads[f->wads_count++];
					memset(w, 0, sizeof(*w));
					GSIO_CHECK(angle_rest(c, &h, &w->path));
					int64_t v;
					GSIO_CHECK(gsioi_tok_int(&c->t, "the number after a WAD", INT32_MIN, INT32_MAX, &v,
					                         NULL));
					w->flag = (int32_t)v;
					continue;
				}
				int64_t v;
				if (h.kind != GSIO_TOKEN_WORD || !gsioi_parse_int64(h.text, h.len, &v) ||
				    v < INT32_MIN || v > INT32_MAX || f->wads_count)
					return fail_tok(c, &h, h.kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED
					                                                : GSIO_ERR_SYNTAX,
					                "expected a number or a <WAD file> in the wad section");
				if (heads < 5) f->wad_head[heads] = (int32_t)v;
				heads++;
			}
		} else if (tok.kind == GSIO_TOKEN_WORD) {
			gsioi_token open;
			GSIO_CHECK(next(c, &open));
			if (open.kind != GSIO_TOKEN_PUNCT || open.text[0] != '{')
				return fail_tok(c, &open, GSIO_ERR_SYNTAX, "expected '{' after a wed section name");
			GSIO_CHECK(skip_group(c, &open));
		} else {
			return fail_tok(c, &tok, GSIO_ERR_SYNTAX, "unexpected token in the wed section");
		}
	}
	const char *end = c->t.data + c->t.pos;
	GSIO_CHECK((f->wed_text = gsioi_arena_strndup(f->arena, start, (size_t)(end - start), c->err)));
	return true;
}

static bool new_block(tctx *c, gsio_wmp_block **out)
{
	gsio_wmp_file *f = c->f;
	GSIO_CHECK(expect_number(c, f->blocks_count, "block number"));
	GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, f->blocks, f->blocks_count, c->cap_blocks, c->err));
	*out = &f->blocks[f->blocks_count++];
	memset(*out, 0, sizeof(**out));
	return punct(c, '{');
}

/* Texture parameters after the name, up to ':', then flags, ambient, albedo. */
static bool surface_tail(tctx *c, gsio_wmp_surface *s, bool dialect_a)
{
	s->scale[0] = s->scale[1] = 1;
	if (!dialect_a) {
		double p[5];
		for (int i = 0; i < 5; i++) GSIO_CHECK(number(c, "a texture parameter", &p[i]));
		s->offset[0] = p[0], s->offset[1] = p[1], s->angle = p[2], s->scale[0] = p[3],
		s->scale[1] = p[4];
		GSIO_CHECK(punct(c, ':'));
	} else {
		// The A4 legend has 5 numbers (x_offs y_offs angle x_scale y_scale);
		// its printed example has 3. The last two are the scales, the ones
		// before them offsets and angle in the legend's order.
		double p[5];
		size_t n = 0;
		for (;;) {
			bool colon;
			GSIO_CHECK(peek_is_punct(c, ':', &colon));
			if (colon) break;
			double v;
			GSIO_CHECK(number(c, "a texture parameter", &v));
			if (n < 5) p[n] = v;
			n++;
		}
		GSIO_CHECK(punct(c, ':'));
		if (n > 5) return fail_tok(c, &c->t.last, GSIO_ERR_SYNTAX, "more than 5 texture parameters");
		double *dst[5] = {&s->offset[0], &s->offset[1], &s->angle, &s->scale[0], &s->scale[1]};
		size_t lead = n >= 2 ? n - 2 : 0;
		for (size_t i = 0; i < lead; i++) *dst[i] = p[i];
		for (size_t i = lead; i < n; i++) *dst[3 + i - lead] = p[i];
	}
	GSIO_CHECK(flag_bits(c, &s->flags, &s->flag_digits));
	GSIO_CHECK(number(c, "ambient", &s->ambient));
	GSIO_CHECK(number(c, "albedo", &s->albedo));
	return true;
}

static bool block_trailer(tctx *c, gsio_wmp_block *b, bool dialect_a)
{
	GSIO_CHECK(flag_bits(c, &b->flags, &b->flag_digits));
	GSIO_CHECK(word(c, "the block function", &b->function));
	if (dialect_a) {
		b->index = (uint32_t)(c->f->blocks_count - 1);
	} else {
		GSIO_CHECK(uint_tok(c, "block index", INT32_MAX, &b->index));
	}
	GSIO_CHECK(punct(c, '}'));
	return punct(c, '}');
}

static bool parse_block_b(tctx *c)
{
	gsio_wmp_block *b;
	GSIO_CHECK(new_block(c, &b));
	gsio_arena *a = c->f->arena;
	uint32_t nv, nf;
	GSIO_CHECK(gsioi_tok_expect_word(&c->t, "vertices"));
	// Every number needs at least two bytes of text: counts beyond that are
	// refused before anything is allocated.
	size_t rem = gsioi_tok_remaining(&c->t);
	GSIO_CHECK(uint_tok(c, "vertex count", (uint32_t)(rem / 6 < INT32_MAX ? rem / 6 : INT32_MAX), &nv));
	GSIO_CHECK(gsioi_tok_expect_word(&c->t, "faces"));
	GSIO_CHECK(uint_tok(c, "face count", (uint32_t)(rem / 8 < INT32_MAX ? rem / 8 : INT32_MAX), &nf));
	GSIO_CHECK((b->vertices = GSIO_NEW_ARRAY(a, double, (size_t)nv * 3, c->err)));
	b->vertices_count = nv;
	for (size_t i = 0; i < (size_t)nv * 3; i++) GSIO_CHECK(number(c, "a vertex coordinate", &b->vertices[i]));
	GSIO_CHECK((b->faces = GSIO_NEW_ARRAY(a, gsio_wmp_face, nf, c->err)));
	GSIO_CHECK((b->surfaces = GSIO_NEW_ARRAY(a, gsio_wmp_surface, nf, c->err)));
	b->faces_count = b->surfaces_count = nf;
	for (uint32_t i = 0; i < nf; i++) {
		uint32_t n;
		rem = gsioi_tok_remaining(&c->t);
		GSIO_CHECK(uint_tok(c, "a face's vertex count", (uint32_t)(rem / 2 < 65535 ? rem / 2 : 65535), &n));
		uint32_t *idx = GSIO_NEW_ARRAY(a, uint32_t, n, c->err);
		GSIO_CHECK(idx);
		for (uint32_t j = 0; j < n; j++) {
			gsioi_token at;
			int64_t v;
			GSIO_CHECK(gsioi_tok_int(&c->t, "a vertex index", 0, INT32_MAX, &v, &at));
			if ((uint64_t)v >= nv) return fail_tok(c, &at, GSIO_ERR_CORRUPT, "vertex index out of range");
			idx[j] = (uint32_t)v;
		}
		b->faces[i].indices = idx;
		b->faces[i].indices_count = n;
		gsio_wmp_surface *s = &b->surfaces[i];
		s->face = i;
		GSIO_CHECK(punct(c, ':'));
		GSIO_CHECK(word(c, "a texture name", &s->texture));
		GSIO_CHECK(punct(c, '('));
		for (int k = 0; k < 4; k++) GSIO_CHECK(number(c, "a texture vector", &s->u[k]));
		GSIO_CHECK(punct(c, ')'));
		GSIO_CHECK(punct(c, '('));
		for (int k = 0; k < 4; k++) GSIO_CHECK(number(c, "a texture vector", &s->v[k]));
		GSIO_CHECK(punct(c, ')'));
		GSIO_CHECK(surface_tail(c, s, false));
		GSIO_CHECK(word(c, "a material", &s->material));
	}
	GSIO_CHECK(punct(c, '{'));
	return block_trailer(c, b, false);
}

static bool parse_block_a(tctx *c)
{
	gsio_wmp_block *b;
	GSIO_CHECK(new_block(c, &b));
	gsio_arena *a = c->f->arena;
	size_t cap_p = 0, cap_s = 0;
	for (;;) {
		gsioi_token tok;
		GSIO_CHECK(next(c, &tok));
		if (tok.kind == GSIO_TOKEN_PUNCT && tok.text[0] == '{') break;
		if (tok.kind != GSIO_TOKEN_PUNCT || tok.text[0] != '(')
			return fail_tok(c, &tok, tok.kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED : GSIO_ERR_SYNTAX,
			                "expected a plane '(' or the block trailer '{'");
		if (b->planes_count >= 65535) return fail_tok(c, &tok, GSIO_ERR_LIMIT, "too many planes");
		GSIO_CHECK(GSIOI_WMP_PUSH(a, b->planes, b->planes_count, cap_p, c->err));
		GSIO_CHECK(GSIOI_WMP_PUSH(a, b->surfaces, b->surfaces_count, cap_s, c->err));
		gsio_wmp_plane *pl = &b->planes[b->planes_count++];
		gsio_wmp_surface *s = &b->surfaces[b->surfaces_count++];
		memset(pl, 0, sizeof(*pl));
		memset(s, 0, sizeof(*s));
		s->face = (uint32_t)(b->planes_count - 1);
		for (int k = 0; k < 3; k++) {
			if (k) GSIO_CHECK(punct(c, '('));
			for (int j = 0; j < 3; j++) GSIO_CHECK(number(c, "a plane point", &pl->p[k][j]));
			GSIO_CHECK(punct(c, ')'));
		}
		GSIO_CHECK(word(c, "a texture name", &s->texture));
		GSIO_CHECK(surface_tail(c, s, true));
		// "ndef ndef 0." = "future expansion not used yet": skipped up to
		// the next plane or the trailer.
		for (;;) {
			gsioi_token p;
			GSIO_CHECK(gsioi_tok_peek(&c->t, &p));
			if (p.kind != GSIO_TOKEN_WORD) break;
			GSIO_CHECK(next(c, &p));
		}
	}
	GSIO_CHECK(block_trailer(c, b, true));
	return gsioi_wmp_planes_to_faces(c->f, b, c->name, c->err);
}

static bool parse_level(tctx *c)
{
	gsio_wmp_file *f = c->f;
	GSIO_CHECK(expect_number(c, c->ents_count, "entity number"));
	GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, f->levels, f->levels_count, c->cap_levels, c->err));
	gsio_wmp_level *lv = &f->levels[f->levels_count];
	memset(lv, 0, sizeof(*lv));
	GSIO_CHECK(add_entity_number(c, GSIO_WMP_LEVEL, f->levels_count++));
	GSIO_CHECK(punct(c, '{'));
	GSIO_CHECK(angle_name(c, &lv->wmb_temp));
	GSIO_CHECK(angle_name(c, &lv->palette));
	GSIO_CHECK(number(c, "nexus", &lv->nexus));
	GSIO_CHECK(number(c, "azimuth", &lv->azimuth));
	GSIO_CHECK(number(c, "elevation", &lv->elevation));
	GSIO_CHECK(angle_name(c, &lv->script));
	double v[18];
	size_t n = 0;
	for (;;) {
		bool close;
		GSIO_CHECK(peek_is_punct(c, '}', &close));
		if (close) break;
		double x;
		GSIO_CHECK(number(c, "a level colour", &x));
		if (n >= 18) return fail_tok(c, &c->t.last, GSIO_ERR_SYNTAX, "more than 6 level colours");
		v[n++] = x;
	}
	GSIO_CHECK(punct(c, '}'));
	if (n % 3) return fail_tok(c, &c->t.last, GSIO_ERR_SYNTAX, "level colours are not RGB triplets");
	lv->colors_count = n / 3;
	// Six triplets: fog 1-4, sun, ambient. Fewer (the A4 example has two):
	// the last ones of that list, sun and ambient (decision, docs/FORMATS.md §7.13).
	size_t first = 6 - lv->colors_count;
	for (size_t i = 0; i < lv->colors_count; i++) {
		size_t slot = first + i;
		double *rgb = slot < 4 ? lv->fog[slot] : slot == 4 ? lv->sun : lv->ambient;
		memcpy(rgb, v + 3 * i, 3 * sizeof(double));
	}
	return true;
}

static bool parse_light(tctx *c)
{
	gsio_wmp_file *f = c->f;
	GSIO_CHECK(expect_number(c, c->ents_count, "entity number"));
	GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, f->lights, f->lights_count, c->cap_lights, c->err));
	gsio_wmp_light *l = &f->lights[f->lights_count];
	memset(l, 0, sizeof(*l));
	GSIO_CHECK(add_entity_number(c, GSIO_WMP_LIGHT, f->lights_count++));
	GSIO_CHECK(punct(c, '{'));
	for (int i = 0; i < 3; i++) GSIO_CHECK(number(c, "a light colour", &l->color[i]));
	GSIO_CHECK(number(c, "the light range", &l->range));
	return punct(c, '}');
}

static gsio_wmp_kind ref_kind(const gsioi_token *tok)
{
	static const char *const names[] = {"object", "level", "block", "start", "light",
	                                    "model", "sound", "path", "region"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (gsioi_token_is(tok, names[i])) return (gsio_wmp_kind)i;
	return GSIO_WMP_KIND_COUNT;
}

static bool parse_object(tctx *c)
{
	gsio_wmp_file *f = c->f;
	if (f->objects_count >= GSIO_WMP_MAX_OBJECTS)
		return fail_tok(c, &c->t.last, GSIO_ERR_LIMIT, "more objects than gsio accepts");
	GSIO_CHECK(expect_number(c, f->objects_count, "object number"));
	GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, f->objects, f->objects_count, c->cap_objects, c->err));
	gsio_wmp_object *o = &f->objects[f->objects_count++];
	memset(o, 0, sizeof(*o));
	GSIO_CHECK(punct(c, '{'));
	// A group's name is only a comment after the brace: `object 1 {  // BRIDGE06`.
	gsioi_tokenizer *t = &c->t;
	if (!t->has_peek) {
		size_t p = t->pos;
		while (p < t->size && (t->data[p] == ' ' || t->data[p] == '\t')) p++;
		if (p + 1 < t->size && t->data[p] == '/' && t->data[p + 1] == '/') {
			p += 2;
			while (p < t->size && t->data[p] == ' ') p++;
			size_t e = p;
			while (e < t->size && t->data[e] != '\r' && t->data[e] != '\n') e++;
			GSIO_CHECK((o->name.s = gsioi_arena_strndup(f->arena, t->data + p, e - p, c->err)));
		}
	}
	GSIO_CHECK(vec3(c, "a position", o->position));
	GSIO_CHECK(vec3(c, "an angle", o->angles));
	GSIO_CHECK(vec3(c, "a scale", o->scale));
	size_t cap = 0;
	for (;;) {
		gsioi_token tok;
		GSIO_CHECK(next(c, &tok));
		if (tok.kind == GSIO_TOKEN_PUNCT && tok.text[0] == '}') break;
		gsio_wmp_kind kind = ref_kind(&tok);
		if (kind == GSIO_WMP_KIND_COUNT)
			return fail_tok(c, &tok, tok.kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED : GSIO_ERR_SYNTAX,
			                "expected an object's child ('object 3', 'block 0', ...) or '}'");
		for (;;) {
			int64_t v;
			GSIO_CHECK(gsioi_tok_int(t, "a child number", 0, INT32_MAX, &v, NULL));
			o = &f->objects[f->objects_count - 1];
			GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, o->refs, o->refs_count, cap, c->err));
			o->refs[o->refs_count].kind = kind;
			o->refs[o->refs_count++].index = (uint32_t)v;
			bool comma;
			GSIO_CHECK(peek_is_punct(c, ',', &comma));
			if (!comma) break;
			GSIO_CHECK(punct(c, ','));
		}
	}
	return true;
}

/* An element gsio has no grammar for (`name [N] { ... }`): kept verbatim.
 * With a number it takes an entity number (entities share one numbering). */
static bool parse_unknown(tctx *c, const gsioi_token *kw)
{
	gsio_wmp_file *f = c->f;
	gsioi_token tok;
	GSIO_CHECK(next(c, &tok));
	int64_t v;
	if (tok.kind == GSIO_TOKEN_WORD && gsioi_parse_int64(tok.text, tok.len, &v)) {
		GSIO_CHECK(add_entity_number(c, GSIO_WMP_KIND_COUNT, f->unknown_count));
		GSIO_CHECK(next(c, &tok));
	}
	if (tok.kind != GSIO_TOKEN_PUNCT || tok.text[0] != '{')
		return fail_tok(c, &tok, tok.kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED : GSIO_ERR_SYNTAX,
		                "expected an element ('block', 'level', 'object', ...)");
	GSIO_CHECK(skip_group(c, &tok));
	GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, f->unknown, f->unknown_count, c->cap_unknown, c->err));
	gsio_wmp_chunk *u = &f->unknown[f->unknown_count++];
	u->id = 0;
	u->type = 0xFF;
	u->data = (const uint8_t *)kw->text;
	u->size = (size_t)(c->t.data + c->t.pos - kw->text);
	return true;
}

/* Turns the numbers of object references into indices of their lists. */
static bool resolve(tctx *c)
{
	gsio_wmp_file *f = c->f;
	for (size_t i = 0; i < f->objects_count; i++) {
		gsio_wmp_object *o = &f->objects[i];
		size_t kept = 0;
		for (size_t j = 0; j < o->refs_count; j++) {
			gsio_wmp_ref r = o->refs[j];
			size_t limit = r.kind == GSIO_WMP_OBJECT ? f->objects_count
			               : r.kind == GSIO_WMP_BLOCK ? f->blocks_count : c->ents_count;
			if (r.index >= limit) {
				GSIO_FAIL(c->err, GSIO_ERR_CORRUPT, c->name, -1,
				          "object %zu refers to %s %u, which the level does not hold", i,
				          r.kind == GSIO_WMP_OBJECT ? "object"
				          : r.kind == GSIO_WMP_BLOCK ? "block" : "entity",
				          r.index);
				return false;
			}
			if (r.kind != GSIO_WMP_OBJECT && r.kind != GSIO_WMP_BLOCK) {
				gsio_wmp_ref e = c->ents[r.index];
				// A reference to an element gsio keeps only as text is
				// dropped: the element has no content gsio understands.
				if (e.kind == GSIO_WMP_KIND_COUNT) continue;
				if (e.kind != r.kind) {
					GSIO_FAIL(c->err, GSIO_ERR_CORRUPT, c->name, -1,
					          "object %zu refers to entity %u with the wrong kind", i, r.index);
					return false;
				}
				r = e;
			}
			o->refs[kept++] = r;
		}
		o->refs_count = kept;
	}
	return true;
}

/* Room for n elements in an empty array (*arr, capacity *cap), n cut to
 * what the rest of the text could hold at 16 bytes an element. */
static bool reserve(tctx *c, void **arr, size_t *cap, size_t elem, uint32_t n)
{
	size_t most = gsioi_tok_remaining(&c->t) / 16;
	return gsioi_wmp_reserve(c->f->arena, arr, 0, cap, elem, n < most ? n : most, c->err);
}

bool gsioi_wmp_decode_text(gsio_wmp_file *f, const uint8_t *data, size_t size, const char *name,
                           gsio_error *err)
{
	tctx c = {.f = f, .name = name, .err = err};
	gsioi_tokenizer_init(&c.t, (const char *)data, size, name, WMP_TEXT_PUNCT, err);
	gsioi_token tok;
	GSIO_CHECK(gsioi_tok_peek(&c.t, &tok));
	// The header comments, verbatim up to a NUL byte if one is there; then
	// only the whole lines before it (a line cut at its NUL lost its line
	// break, and the level written back ran "version" into the comment).
	size_t nc = (size_t)(tok.text - (const char *)data);
	const uint8_t *nul = memchr(data, 0, nc);
	if (nul) {
		nc = (size_t)(nul - data);
		while (nc && data[nc - 1] != '\n') nc--;
	}
	GSIO_CHECK((f->comments = gsioi_arena_strndup(f->arena, (const char *)data, nc, err)));
	bool b = gsioi_token_is(&tok, "version");
	f->dialect = b ? GSIO_WMP_TEXT_B : GSIO_WMP_TEXT_A;
	if (b) {
		GSIO_CHECK(next(&c, &tok));
		GSIO_CHECK(uint_tok(&c, "version", INT32_MAX, &f->version));
	}
	static const char *const count_names[3] = {"blocks", "entities", "objects"};
	uint32_t counts[3];
	for (int i = 0; i < 3; i++) {
		GSIO_CHECK(gsioi_tok_expect_word(&c.t, count_names[i]));
		GSIO_CHECK(uint_tok(&c, count_names[i], INT32_MAX, &counts[i]));
	}
	f->counts[0] = counts[2], f->counts[1] = counts[0], f->counts[2] = counts[1];
	// The header's counts size the block and object arrays once instead of
	// doubling into them (the doubling's earlier arrays stay in the arena).
	// Only a hint: a wrong count costs a copy, and a count larger than the
	// text could hold (a block or an object takes more than 16 bytes) is cut.
	GSIO_CHECK(reserve(&c, (void **)&f->blocks, &c.cap_blocks, sizeof(*f->blocks), counts[0]));
	GSIO_CHECK(reserve(&c, (void **)&f->objects, &c.cap_objects, sizeof(*f->objects), counts[2]));
	for (;;) {
		GSIO_CHECK(next(&c, &tok));
		if (tok.kind == GSIO_TOKEN_EOF) break;
		if (gsioi_token_is(&tok, "wed")) {
			GSIO_CHECK(parse_wed(&c, &tok));
		} else if (gsioi_token_is(&tok, "block")) {
			GSIO_CHECK(b ? parse_block_b(&c) : parse_block_a(&c));
		} else if (gsioi_token_is(&tok, "level")) {
			GSIO_CHECK(parse_level(&c));
		} else if (gsioi_token_is(&tok, "light")) {
			GSIO_CHECK(parse_light(&c));
		} else if (gsioi_token_is(&tok, "object")) {
			GSIO_CHECK(parse_object(&c));
		} else if (tok.kind == GSIO_TOKEN_WORD) {
			GSIO_CHECK(parse_unknown(&c, &tok));
		} else {
			return fail_tok(&c, &tok, GSIO_ERR_SYNTAX, "expected an element");
		}
	}
	if (!f->objects_count) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, name, -1, "the level has no objects (no root)");
		return false;
	}
	return resolve(&c);
}

// -- Encoding (dialect B)

typedef struct tw {
	gsioi_writer *w;
	char dp[8]; // the locale's decimal point, replaced by '.'
} tw;

static void put(tw *o, const char *s)
{
	gsioi_write_bytes(o->w, s, strlen(s));
}

static void putf(tw *o, const char *fmt, ...) GSIO_PRINTF(2, 3);
static void putf(tw *o, const char *fmt, ...)
{
	char buf[1200];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->w->failed = true;
		return;
	}
	gsioi_write_bytes(o->w, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* C's "%f" with '.' whatever the locale; `strip` cuts the trailing zeros
 * (and the point): WED prints coordinates "15.999998", "-0", "0.5". Room
 * for every double: "%.6f" of 1.8e308 is 317 characters (the text was cut
 * at 63, which wrote values from 1e62 up wrong: fuzz_wmp_a). */
#define NUM_ROOM 400
static const char *num(tw *o, double v, bool strip, char buf[NUM_ROOM])
{
	if (!isfinite(v)) v = 0;
	char tmp[NUM_ROOM];
	snprintf(tmp, sizeof(tmp), "%.6f", v);
	size_t dpl = strlen(o->dp);
	char *p = dpl ? strstr(tmp, o->dp) : NULL;
	size_t n = 0;
	for (char *q = tmp; *q && n < NUM_ROOM - 1; q++) {
		if (p && q == p) {
			buf[n++] = '.';
			q += dpl - 1;
			continue;
		}
		buf[n++] = *q;
	}
	buf[n] = 0;
	if (strip && strchr(buf, '.')) {
		while (n && buf[n - 1] == '0') buf[--n] = 0;
		if (n && buf[n - 1] == '.') buf[--n] = 0;
	}
	return buf;
}

static void put_num(tw *o, double v, bool strip)
{
	char b[NUM_ROOM];
	put(o, num(o, v, strip, b));
}

static void put_flags(tw *o, uint32_t v, uint8_t digits)
{
	unsigned bits = 0;
	for (uint32_t x = v; x; x >>= 1) bits++;
	unsigned n = digits ? digits : 4;
	if (bits > n) n = bits;
	char b[40];
	for (unsigned i = 0; i < n; i++) b[i] = (char)('0' + ((v >> (n - 1 - i)) & 1));
	b[n] = 0;
	put(o, b);
}

static const char *str_or(const gsio_wmp_string *s, const char *dflt)
{
	return s->s ? s->s : dflt;
}

static void put_block_b(tw *o, const gsio_wmp_block *b, size_t number)
{
	putf(o, "block %zu {\r\n\tvertices %zu\r\n\tfaces %zu\r\n", number, b->vertices_count,
	     b->faces_count);
	for (size_t i = 0; i < b->vertices_count; i++) {
		put(o, i % 3 == 0 ? "\t" : "   ");
		for (int k = 0; k < 3; k++) {
			if (k) put(o, " ");
			put_num(o, b->vertices[3 * i + k], true);
		}
		if (i % 3 == 2 || i + 1 == b->vertices_count) put(o, "\r\n");
	}
	for (size_t i = 0; i < b->faces_count; i++) {
		const gsio_wmp_face *fa = &b->faces[i];
		putf(o, "\t%zu ", fa->indices_count);
		for (size_t j = 0; j < fa->indices_count; j++) putf(o, " %u", fa->indices[j]);
		const gsio_wmp_surface *s = NULL;
		for (size_t j = 0; j < b->surfaces_count && !s; j++)
			if (b->surfaces[j].face == i) s = &b->surfaces[j];
		gsio_wmp_surface none;
		if (!s) {
			memset(&none, 0, sizeof(none));
			none.scale[0] = none.scale[1] = 1;
			none.albedo = 50;
			s = &none;
		}
		putf(o, " : %s (", str_or(&s->texture, "ndef"));
		for (int k = 0; k < 4; k++) put(o, " "), put_num(o, s->u[k], true);
		put(o, " ) (");
		for (int k = 0; k < 4; k++) put(o, " "), put_num(o, s->v[k], true);
		put(o, " )");
		double p[5] = {s->offset[0], s->offset[1], s->angle, s->scale[0], s->scale[1]};
		for (int k = 0; k < 5; k++) put(o, " "), put_num(o, p[k], true);
		put(o, " : ");
		put_flags(o, s->flags, s->flag_digits);
		put(o, " ");
		put_num(o, s->ambient, true);
		put(o, " ");
		put_num(o, s->albedo, true);
		putf(o, " %s\r\n", str_or(&s->material, "ndef"));
	}
	put(o, "\t{\r\n\t\t");
	put_flags(o, b->flags, b->flag_digits);
	putf(o, "\r\n\t\t%s\r\n\t\t%u\r\n\t}\r\n}\r\n\r\n", str_or(&b->function, "ndef"), b->index);
}

static void put_level_b(tw *o, const gsio_wmp_level *lv, size_t number, bool binary_colours)
{
	putf(o, "level %zu {\r\n\t<%s>\r\n\t<%s>\r\n\t", number, str_or(&lv->wmb_temp, "ndef"),
	     str_or(&lv->palette, "ndef"));
	put_num(o, lv->nexus, true);
	put(o, "\r\n\t");
	put_num(o, lv->azimuth, true);
	put(o, "\r\n\t");
	put_num(o, lv->elevation, true);
	putf(o, "\r\n\t<%s>\r\n", str_or(&lv->script, "ndef"));
	size_t n = lv->colors_count ? lv->colors_count : 6;
	if (binary_colours) n = 6;
	for (size_t i = 6 - n; i < 6; i++) {
		const double *rgb = i < 4 ? lv->fog[i] : i == 4 ? lv->sun : lv->ambient;
		put(o, "\t");
		for (int k = 0; k < 3; k++) {
			if (k) put(o, " ");
			// Text colours are percent, binary ones 0..255.
			put_num(o, binary_colours ? rgb[k] * 100.0 / 255.0 : rgb[k], false);
		}
		put(o, "\r\n");
	}
	put(o, "}\r\n\r\n");
}

bool gsioi_wmp_encode_text(const gsio_wmp_file *f, gsioi_writer *w, gsio_error *err)
{
	tw o = {.w = w};
	const struct lconv *lc = localeconv();
	snprintf(o.dp, sizeof(o.dp), "%s", lc && lc->decimal_point ? lc->decimal_point : ".");
	if (f->starts_count || f->entities_count || f->sounds_count || f->paths_count ||
	    f->regions_count) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, "", -1,
		          "the text dialect has no known syntax for starts, models, sounds, paths or "
		          "regions: write this level as binary");
		return false;
	}
	bool binary = f->dialect == GSIO_WMP_BINARY;
	put(&o, f->comments && f->dialect == GSIO_WMP_TEXT_B ? f->comments
	                                                     : "// WMP2\r\n// ACKWED V 6.731.01\r\n\r\n");
	putf(&o, "version %u\r\n\r\n", f->version ? f->version : 710);
	size_t ents = f->levels_count + f->lights_count;
	putf(&o, "blocks %zu\r\nentities %zu\r\nobjects %zu\r\n\r\nwed {\r\n", f->blocks_count, ents,
	     f->objects_count);
	if (f->has_palette) {
		put(&o, "\tpalette {\r\n");
		for (int r = 0; r < 16; r++) {
			put(&o, "\t\t");
			for (int k = 0; k < 16; k++) {
				const uint8_t *p = f->palette + 3 * (16 * r + k);
				putf(&o, "%02x %02x %02x  ", p[0], p[1], p[2]);
			}
			put(&o, "\r\n");
		}
		put(&o, "\t}\r\n");
	}
	if (f->has_wad_section && (f->wads_count || !binary)) {
		putf(&o, "\r\n\twad {\r\n\t\t%d %d %d %d %d\r\n", f->wad_head[0], f->wad_head[1],
		     f->wad_head[2], f->wad_head[3], f->wad_head[4]);
		for (size_t i = 0; i < f->wads_count; i++)
			putf(&o, "\t\t<%.1000s> %d\r\n", gsioi_wmp_str(&f->wads[i].path),
			     binary ? 1 : f->wads[i].flag);
		put(&o, "\t}\r\n");
	}
	put(&o, "}\r\n\r\n");
	for (size_t i = 0; i < f->blocks_count; i++) put_block_b(&o, &f->blocks[i], i);
	for (size_t i = 0; i < f->levels_count; i++) put_level_b(&o, &f->levels[i], i, binary);
	for (size_t i = 0; i < f->lights_count; i++) {
		const gsio_wmp_light *l = &f->lights[i];
		putf(&o, "light %zu {\r\n\t", f->levels_count + i);
		for (int k = 0; k < 3; k++) {
			put_num(&o, binary ? l->color[k] * 100.0 / 255.0 : l->color[k], true);
			put(&o, " ");
		}
		put_num(&o, l->range, true);
		put(&o, "\r\n}\r\n\r\n");
	}
	if (!binary)
		for (size_t i = 0; i < f->unknown_count; i++) {
			gsioi_write_bytes(w, f->unknown[i].data, f->unknown[i].size);
			put(&o, "\r\n\r\n");
		}
	static const char *const kw[] = {"object", "level", "block", "start", "light",
	                                 "model", "sound", "path", "region"};
	for (size_t i = 0; i < f->objects_count; i++) {
		const gsio_wmp_object *ob = &f->objects[i];
		putf(&o, "object %zu {", i);
		if (ob->name.s && !binary) putf(&o, "  // %.200s", ob->name.s);
		else if (i == 0) put(&o, "  // Root");
		put(&o, "\r\n\t");
		const double *v3[3] = {ob->position, ob->angles, ob->scale};
		for (int k = 0; k < 3; k++) {
			put(&o, k ? " (" : "(");
			for (int j = 0; j < 3; j++) {
				if (j) put(&o, " ");
				put_num(&o, v3[k][j], true);
			}
			put(&o, ")");
		}
		put(&o, "\r\n");
		size_t run = 0;
		for (size_t j = 0; j < ob->refs_count; j++) {
			gsio_wmp_ref r = ob->refs[j];
			size_t number = r.index;
			if (r.kind == GSIO_WMP_LIGHT) number += f->levels_count;
			bool same = j > 0 && ob->refs[j - 1].kind == r.kind && run < 10;
			if (same) {
				putf(&o, ", %zu", number);
			} else {
				if (j) put(&o, "\r\n");
				putf(&o, "\t%s %zu", kw[r.kind], number);
				run = 0;
			}
			run++;
		}
		if (ob->refs_count) put(&o, "\r\n");
		put(&o, "}\r\n\r\n");
	}
	return !w->failed;
}
