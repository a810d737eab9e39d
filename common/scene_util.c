/* Scene helpers shared by the vertex-animation importers: see
 * gsioi_scene_util.h. */
#include "gsioi_scene_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

// -- Nodes, parts, materials

int32_t gsioi_scene_add_model_node(gsio_scene *s, const char *path, int32_t mesh,
                                   gsio_error *err)
{
	if (s->nodes_count >= (size_t)INT32_MAX) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "too many nodes");
		return -1;
	}
	const char *base = path ? gsioi_path_base(path) : "";
	const char *dot = strrchr(base, '.');
	size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	const char *name = len ? gsioi_text_utf8_dup(s->arena, base, len, err) : "model";
	gsio_node *nodes = GSIO_NEW_ARRAY(s->arena, gsio_node, s->nodes_count + 1, err);
	if (!name || !nodes) return -1;
	if (s->nodes_count) memcpy(nodes, s->nodes, s->nodes_count * sizeof(*nodes));
	gsio_node *n = &nodes[s->nodes_count];
	n->name = name;
	n->parent = -1;
	n->rotation[3] = 1.0f;
	for (int k = 0; k < 3; k++) n->scale[k] = 1.0f;
	n->mesh = mesh;
	n->camera = -1;
	n->light = -1;
	s->nodes = nodes;
	return (int32_t)s->nodes_count++;
}

bool gsioi_mesh_one_part(gsio_scene *s, gsio_mesh *m, int32_t material, gsio_error *err)
{
	GSIO_CHECK((m->parts = GSIO_NEW_ARRAY(s->arena, gsio_mesh_part, 1, err)));
	m->parts_count = 1;
	m->parts[0].first_index = 0;
	m->parts[0].index_count = m->index_count;
	m->parts[0].material = material;
	return true;
}

void gsioi_material_defaults(gsio_material *mat)
{
	*mat = (gsio_material){.base_color = {1.0f, 1.0f, 1.0f, 1.0f},
	                       .alpha_mode = GSIO_ALPHA_OPAQUE,
	                       .alpha_cutoff = 0.5f};
#define EMPTY_SLOT(f) \
	mat->f = (gsio_texture){.image = -1, .wrap_u = GSIO_WRAP_REPEAT, .wrap_v = GSIO_WRAP_REPEAT, .tiling = 1};
	GSIOI_MATERIAL_TEXTURES(EMPTY_SLOT)
#undef EMPTY_SLOT
}

bool gsioi_floats_finite(const float *f, size_t n)
{
	// A float is not finite when its exponent bits are all ones. Checked a
	// block at a time without a branch per float (SSE2: 4 at a time), then
	// the block's verdict: the loaders and the validator pass every frame
	// through here (cbabe_male 2's 35 frames: 5.9 of 34.8 million
	// instructions of its conversion with isfinite() per float).
	const uint32_t exp = 0x7f800000u;
	size_t i = 0;
#ifdef __SSE2__
	const __m128i vexp = _mm_set1_epi32((int)exp);
	while (i + 4 <= n) {
		__m128i bad = _mm_setzero_si128();
		size_t end = n - i > 4096 ? i + 4096 : n;
		for (; i + 4 <= end; i += 4) {
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(f + i));
			bad = _mm_or_si128(bad, _mm_cmpeq_epi32(_mm_and_si128(b, vexp), vexp));
		}
		if (_mm_movemask_epi8(bad)) return false;
	}
#endif
	uint32_t bad = 0;
	for (; i < n; i++) {
		uint32_t b;
		memcpy(&b, f + i, sizeof(b));
		bad |= (b & exp) == exp;
	}
	return !bad;
}

// -- Clips

/* The clip a frame belongs to: its name without trailing digits and the
 * separators before them ("walk3" -> "walk", "frame 0" -> "frame"). */
static size_t clip_stem(const char *name)
{
	size_t len = strlen(name);
	while (len && name[len - 1] >= '0' && name[len - 1] <= '9') len--;
	while (len && (name[len - 1] == ' ' || name[len - 1] == '_' || name[len - 1] == '-')) len--;
	return len;
}

static bool same_stem(const char *a, const char *b)
{
	size_t la = clip_stem(a), lb = clip_stem(b);
	return la == lb && !memcmp(a, b, la);
}

/* A clip name: a stem of at most CLIP_STEM_MAX characters and a suffix
 * ".N" (a 32-bit N). The names counted below are held whole in the same
 * room: with 48 bytes there, a stem of 47 and its ".2" were counted as the
 * stem twice, and its next return was named ".4". */
#define CLIP_STEM_MAX 47
#define CLIP_NAME_SIZE (CLIP_STEM_MAX + 12)

/* Counts a clip name for the clips after it: a later stem X is taken as
 * often as earlier names are X or start with "X." (X.2, X.3, but also a
 * stem "X.b"), so the name and each of its prefixes that a '.' follows
 * count once. */
static bool count_clip_name(gsio_scene *s, gsioi_names *taken, const char *name, gsio_error *err)
{
	for (size_t i = 0;; i++) {
		if (name[i] && name[i] != '.') continue;
		int64_t had = -1;
		const char *key = NULL;
		char part[CLIP_NAME_SIZE];
		snprintf(part, sizeof(part), "%.*s", (int)i, name);
		had = gsioi_names_find(taken, part);
		if (had < 0) GSIO_CHECK((key = gsioi_arena_strdup(s->arena, part, err)));
		GSIO_CHECK(gsioi_names_set(taken, had < 0 ? key : part, had < 0 ? 1u : (uint32_t)had + 1, err));
		if (!name[i]) return true;
	}
}

bool gsioi_scene_build_clips(gsio_scene *s, const gsio_mesh *m, int32_t node, float fps,
                             gsio_error *err)
{
	// One frame is a pose, not an animation (a writer makes no morph target of it).
	if (m->frames_count < 2) return true;
	size_t n = 1;
	for (size_t i = 1; i < m->frames_count; i++)
		if (!same_stem(m->frames[i].name, m->frames[i - 1].name)) n++;
	gsio_animation *anims = GSIO_NEW_ARRAY(s->arena, gsio_animation, s->animations_count + n, err);
	GSIO_CHECK(anims);
	if (s->animations_count) memcpy(anims, s->animations, s->animations_count * sizeof(*anims));
	gsio_animation *mine = anims + s->animations_count;
	size_t c = 0;
	gsioi_names taken; // earlier clip names and their prefixes before a '.' -> count
	gsioi_names_init(&taken, s->arena, false);
	for (size_t i = 0; i < m->frames_count;) {
		size_t count = 1;
		while (i + count < m->frames_count &&
		       same_stem(m->frames[i + count].name, m->frames[i + count - 1].name))
			count++;
		const char *fn = m->frames[i].name;
		size_t len = clip_stem(fn);
		char cname[CLIP_NAME_SIZE];
		if (len)
			snprintf(cname, CLIP_STEM_MAX + 1, "%.*s", (int)len, fn);
		else // a name of digits only has no stem
			snprintf(cname, sizeof(cname), "anim");
		// A stem that comes back after other clips gets a suffix: names stay
		// unique. The earlier names are counted by hash (count_clip_name):
		// a scan of them per clip made a model of 20 000 clips quadratic.
		// A stem of the file's own may already be that name ("Dead.2" before
		// a second "Dead"; fuzz_load found the two "Dead.2"): the next one
		// that no earlier name is, or starts with and a '.'.
		int64_t earlier = gsioi_names_find(&taken, cname);
		unsigned dup = 1 + (earlier > 0 ? (unsigned)earlier : 0);
		size_t cl = strlen(cname);
		if (dup > 1) {
			snprintf(cname + cl, sizeof(cname) - cl, ".%u", dup);
			while (gsioi_names_find(&taken, cname) >= 0) snprintf(cname + cl, sizeof(cname) - cl, ".%u", ++dup);
		}
		gsio_animation *a = &mine[c++];
		GSIO_CHECK((a->name = gsioi_arena_strdup(s->arena, cname, err)));
		GSIO_CHECK(count_clip_name(s, &taken, a->name, err));
		a->fps = fps;
		a->frames_count = count;
		GSIO_CHECK((a->channels = GSIO_NEW_ARRAY(s->arena, gsio_channel, 1, err)));
		a->channels_count = 1;
		a->channels[0].node = node;
		a->channels[0].path = GSIO_PATH_MORPH;
		GSIO_CHECK((a->channels[0].frames = GSIO_NEW_ARRAY(s->arena, uint32_t, count, err)));
		for (size_t k = 0; k < count; k++) a->channels[0].frames[k] = (uint32_t)(i + k);
		i += count;
	}
	s->animations = anims;
	s->animations_count += c;
	return true;
}

// -- Double-sided faces

/* A triangle by its position indices, rotated so the smallest comes first:
 * (a, b, c) with b < c, and `flip` when the stored order was a, c, b. Two
 * triangles with equal a, b, c and different flips are one face stored
 * once each way round. */
typedef struct split_key {
	uint32_t a, b, c;
	uint32_t flip;
	uint32_t tri;
} split_key;

static int split_key_cmp(const void *pa, const void *pb)
{
	const split_key *x = pa, *y = pb;
	if (x->a != y->a) return x->a < y->a ? -1 : 1;
	if (x->b != y->b) return x->b < y->b ? -1 : 1;
	if (x->c != y->c) return x->c < y->c ? -1 : 1;
	if (x->flip != y->flip) return x->flip < y->flip ? -1 : 1;
	return x->tri < y->tri ? -1 : x->tri > y->tri;
}

static int pair_cmp(const void *pa, const void *pb)
{
	uint64_t x, y;
	memcpy(&x, pa, sizeof(x));
	memcpy(&y, pb, sizeof(y));
	return x < y ? -1 : x > y;
}

/* any_repeat() for keys whose a spans a range of at most a few times their
 * count: the keys bucketed by a (a counting sort), then the (b, c) pairs of
 * each bucket compared with each other, or sorted where the bucket is big (a
 * fan of thousands of triangles around one vertex stays n log n). Why not
 * the hash table below: neighbouring triangles share their vertices, so
 * these passes walk memory nearly in order, where the table's random probes
 * missed the cache once a key (a seventh of loading the synthetic MDL5 of
 * 40 000 triangles). */
static int any_repeat_buckets(split_key *keys, size_t n, uint32_t lo, uint32_t hi,
                              gsio_arena *tmp, gsio_error *err)
{
	size_t range = (size_t)(hi - lo) + 1;
	uint32_t *end = GSIO_NEW_ARRAY(tmp, uint32_t, range + 1, err); // zeroed: the counts
	uint32_t *order = GSIO_NEW_ARRAY_UNINIT(tmp, uint32_t, n, err);
	if (!end || !order) return -1;
	for (size_t i = 0; i < n; i++) end[keys[i].a - lo + 1]++;
	for (size_t v = 0; v < range; v++) end[v + 1] += end[v];
	// Placing bucket v's keys moves end[v] from its first slot to its last + 1.
	for (size_t i = 0; i < n; i++) order[end[keys[i].a - lo]++] = (uint32_t)i;
	uint64_t *pairs = NULL;
	bool repeat = false;
	for (size_t v = 0, first = 0; v < range && !repeat; first = end[v], v++) {
		size_t k = end[v] - first;
		const uint32_t *o = order + first;
		if (k < 2) continue;
		if (k <= 16) {
			for (size_t i = 1; i < k && !repeat; i++)
				for (size_t j = 0; j < i; j++)
					if (keys[o[i]].b == keys[o[j]].b && keys[o[i]].c == keys[o[j]].c) repeat = true;
			continue;
		}
		if (!pairs && !(pairs = GSIO_NEW_ARRAY_UNINIT(tmp, uint64_t, n, err))) return -1;
		for (size_t i = 0; i < k; i++) pairs[i] = (uint64_t)keys[o[i]].b << 32 | keys[o[i]].c;
		qsort(pairs, k, sizeof(*pairs), pair_cmp);
		for (size_t i = 1; i < k && !repeat; i++) repeat = pairs[i] == pairs[i - 1];
	}
	if (!repeat) return 0;
	// Sorted as split_key_cmp orders them: bucket by bucket (a ascending),
	// each bucket by the rest of the key; a whole-array qsort of the 20-byte
	// keys was a fifth of warlock.MDL's load.
	split_key *sorted = GSIO_NEW_ARRAY_UNINIT(tmp, split_key, n, err);
	if (!sorted) return -1;
	for (size_t v = 0, first = 0; v < range; first = end[v], v++) {
		size_t k = end[v] - first;
		split_key *b = sorted + first;
		for (size_t i = 0; i < k; i++) b[i] = keys[order[first + i]];
		if (k > 16) {
			qsort(b, k, sizeof(*b), split_key_cmp);
			continue;
		}
		for (size_t i = 1; i < k; i++) { // insertion sort
			split_key x = b[i];
			size_t j = i;
			for (; j > 0 && split_key_cmp(&b[j - 1], &x) > 0; j--) b[j] = b[j - 1];
			b[j] = x;
		}
	}
	memcpy(keys, sorted, n * sizeof(*keys));
	return 1;
}

/* 1 when two of the n keys have the same vertex triple (a, b, c), the keys
 * then sorted (split_key_cmp), else 0; -1 when memory cannot be had (err
 * set). lo and hi: the least and largest a. Keys whose a spans no more
 * than 4 n + 64 are bucketed (see any_repeat_buckets()); others (a part
 * using a few vertices spread over a big mesh) go into an open-addressing
 * table of key indices in tmp, whose size follows the keys, not the
 * range. */
static int any_repeat(split_key *keys, size_t n, uint32_t lo, uint32_t hi, gsio_arena *tmp,
                      gsio_error *err)
{
	if (n < 2) return 0;
	if ((size_t)(hi - lo) <= 4 * n + 64) return any_repeat_buckets(keys, n, lo, hi, tmp, err);
	size_t cap = 16;
	while (cap < 2 * n) cap *= 2;
	uint32_t *slot = GSIO_NEW_ARRAY(tmp, uint32_t, cap, err); // key index + 1; 0 empty (zeroed)
	if (!slot) return -1;
	for (size_t i = 0; i < n; i++) {
		const split_key *k = &keys[i];
		uint64_t h = ((uint64_t)k->a * 0x9E3779B97F4A7C15u) ^ ((uint64_t)k->b * 0xC2B2AE3D27D4EB4Fu) ^
		             ((uint64_t)k->c * 0x165667B19E3779F9u);
		size_t at = (size_t)(h >> 32) & (cap - 1);
		for (; slot[at]; at = (at + 1) & (cap - 1)) {
			const split_key *o = &keys[slot[at] - 1];
			if (o->a == k->a && o->b == k->b && o->c == k->c) {
				qsort(keys, n, sizeof(*keys), split_key_cmp);
				return 1;
			}
		}
		slot[at] = (uint32_t)i + 1;
	}
	return 0;
}

/* How well the triangle's face normal agrees with its vertices' normals:
 * the sum of the dot products (the face normal unnormalised). */
static double face_agreement(const gsio_mesh *m, size_t t)
{
	const uint32_t *ix = m->indices + 3 * t;
	const float *p0 = m->positions + 3 * (size_t)ix[0], *p1 = m->positions + 3 * (size_t)ix[1],
	            *p2 = m->positions + 3 * (size_t)ix[2];
	double e1[3], e2[3];
	for (int k = 0; k < 3; k++) {
		e1[k] = (double)p1[k] - p0[k];
		e2[k] = (double)p2[k] - p0[k];
	}
	double fn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
	                e1[0] * e2[1] - e1[1] * e2[0]};
	double sum = 0;
	for (int v = 0; v < 3; v++) {
		const float *n = m->normals + 3 * (size_t)ix[v];
		sum += fn[0] * n[0] + fn[1] * n[1] + fn[2] * n[2];
	}
	return sum;
}

/* The double-sided copy of material `mat` (-1: none) for meshes whose
 * materials are shared: one per material in the whole scene, found again by
 * its "gsio:double_sided_of" extra. */
static int32_t double_sided_copy(gsio_scene *s, int32_t mat, gsio_error *err)
{
	for (size_t i = 0; i < s->materials_count; i++) {
		const gsio_extra *x = gsio_extras_get(&s->materials[i].extras, "gsio:double_sided_of");
		if (x && x->i == mat) return (int32_t)i;
	}
	int32_t ds = gsio_scene_add_material(s, NULL, err);
	if (ds < 0) return -1;
	gsio_material *dm = &s->materials[ds];
	char name[96];
	if (mat >= 0) {
		*dm = s->materials[mat];
		// Its own extras list (same values), so setting one later touches one material.
		dm->extras.items = NULL;
		dm->extras.count = 0;
		const gsio_extras *from = &s->materials[mat].extras;
		if (from->count) {
			gsio_extra *items = GSIO_NEW_ARRAY(s->arena, gsio_extra, from->count, err);
			if (!items) return -1;
			memcpy(items, from->items, from->count * sizeof(*items));
			dm->extras.items = items;
			dm->extras.count = from->count;
		}
		snprintf(name, sizeof(name), "%s_double_sided",
		         s->materials[mat].name ? s->materials[mat].name : "material");
	} else {
		snprintf(name, sizeof(name), "double_sided");
	}
	if (!(dm->name = gsioi_arena_strdup(s->arena, name, err))) return -1;
	dm->double_sided = true;
	if (gsio_extras_set_int(s, &dm->extras, "gsio:double_sided_of", mat, err)) return -1;
	return ds;
}

bool gsioi_mesh_fold_double_sided(gsio_scene *s, gsio_mesh *m, gsio_arena *tmp,
                                  bool shared_materials, size_t *pairs, gsio_error *err)
{
	*pairs = 0;
	size_t ntri = m->index_count / 3, nparts = m->parts_count;
	if (!m->normals || !m->positions || ntri < 2 || !nparts) return true;
	// Written before they are read: not zeroed (a 40 000-triangle mesh's
	// 800 KB of keys were zeroed for nothing, and the table above twice).
	split_key *keys = gsioi_arena_array_uninit(tmp, ntri, sizeof(split_key), err);
	uint8_t *role = GSIO_NEW_ARRAY(tmp, uint8_t, ntri, err); // 0 single, 1 kept, 2 dropped
	size_t *part_pairs = GSIO_NEW_ARRAY(tmp, size_t, nparts, err);
	GSIO_CHECK(keys && role && part_pairs);
	size_t npairs = 0;
	// Pairs are looked for inside each part: two faces with different
	// materials look different from each side, so they stay two faces.
	for (size_t pi = 0; pi < nparts; pi++) {
		const gsio_mesh_part *part = &m->parts[pi];
		size_t t0 = part->first_index / 3, t1 = t0 + part->index_count / 3, nk = 0;
		uint32_t lo = UINT32_MAX, hi = 0;
		const uint32_t *sv = m->source_vertex;
		for (size_t t = t0; t < t1 && t < ntri; t++) {
			const uint32_t *ix = m->indices + 3 * t;
			uint32_t p0 = sv ? sv[ix[0]] : ix[0], p1 = sv ? sv[ix[1]] : ix[1],
			         p2 = sv ? sv[ix[2]] : ix[2];
			if (p0 == p1 || p1 == p2 || p0 == p2) continue; // no face to see
			// Rotated so the smallest comes first (the winding kept).
			uint32_t a, x, y;
			if (p0 < p1 && p0 < p2)
				a = p0, x = p1, y = p2;
			else if (p1 < p2)
				a = p1, x = p2, y = p0;
			else
				a = p2, x = p0, y = p1;
			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
			keys[nk++] = (split_key){a, x < y ? x : y, x < y ? y : x, x > y, (uint32_t)t};
		}
		// Most parts have no triangle twice: one pass over the vertex
		// triples says so, and only parts with a repeat are sorted.
		int repeat = any_repeat(keys, nk, lo, hi, tmp, err);
		if (repeat < 0) return false;
		if (!repeat) continue; // else the keys are sorted
		for (size_t i = 0; i < nk;) {
			size_t j = i, mid;
			while (j < nk && keys[j].a == keys[i].a && keys[j].b == keys[i].b &&
			       keys[j].c == keys[i].c)
				j++;
			for (mid = i; mid < j && !keys[mid].flip; mid++) {}
			// Pair the k-th face of one winding with the k-th of the other.
			for (size_t u = i, w = mid; u < mid && w < j; u++, w++) {
				uint32_t tu = keys[u].tri, tw = keys[w].tri;
				double du = face_agreement(m, tu), dw = face_agreement(m, tw);
				// Keep the face whose winding agrees with the normals; a tie
				// (normals in the face's plane: trashcan.mdl has 4) keeps the
				// face stored first, so the choice is stable.
				bool keep_u = du > dw || (du == dw && tu < tw);
				role[keep_u ? tu : tw] = 1;
				role[keep_u ? tw : tu] = 2;
				part_pairs[pi]++;
			}
			i = j;
		}
		npairs += part_pairs[pi];
	}
	if (!npairs) return true;

	// Each part becomes its single faces, then (if it has pairs) their kept
	// faces with a double-sided material.
	uint32_t *out = GSIO_NEW_ARRAY(tmp, uint32_t, 3 * (ntri - npairs), err);
	gsio_mesh_part *parts = GSIO_NEW_ARRAY(s->arena, gsio_mesh_part, 2 * nparts, err);
	GSIO_CHECK(out && parts);
	size_t n = 0, np = 0;
	for (size_t pi = 0; pi < nparts; pi++) {
		const gsio_mesh_part part = m->parts[pi];
		size_t t0 = part.first_index / 3, t1 = t0 + part.index_count / 3;
		if (t1 > ntri) t1 = ntri;
		size_t nsingle = (t1 - t0) - 2 * part_pairs[pi];
		int32_t mat = part.material;
		for (int pass = 0; pass < 2; pass++) {
			size_t first = n;
			for (size_t t = t0; t < t1; t++)
				if (role[t] == pass) {
					memcpy(out + 3 * n, m->indices + 3 * t, 3 * sizeof(uint32_t));
					n++;
				}
			if (n == first) continue;
			int32_t pmat = mat;
			if (pass == 1 && nsingle == 0 && !shared_materials) {
				// Every face of the part is a pair and the materials are this
				// mesh's own: its material turns double-sided; a one-part
				// mesh's others (the alternative skins an MDL switches to) too.
				if (nparts == 1)
					for (size_t i = 0; i < s->materials_count; i++) s->materials[i].double_sided = true;
				else if (mat >= 0)
					s->materials[mat].double_sided = true;
			} else if (pass == 1) {
				GSIO_CHECK((pmat = double_sided_copy(s, mat, err)) >= 0);
			}
			parts[np++] = (gsio_mesh_part){3 * first, 3 * (n - first), pmat};
		}
	}
	memcpy(m->indices, out, 3 * n * sizeof(uint32_t));
	m->index_count = 3 * n;
	m->parts = parts;
	m->parts_count = np;
	*pairs = npairs;
	return gsio_extras_set_int(s, &m->extras, "gsio:double_sided_pairs", (int64_t)npairs, err) == 0;
}
