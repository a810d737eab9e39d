/* The glTF writer's morph targets: one per frame of a mesh, its POSITION
 * and NORMAL deltas from the base pose, dense (straight into the binary
 * buffer when it holds them in memory) or sparse (GSIO_GLTF_SPARSE_MORPH).
 * Packed frames and float records are read in one pass over their records,
 * once per file vertex where vertices share one, with SSE2 where the host
 * has it; the same floats, operation for operation, as unpacking the frame
 * and taking the deltas. Relies on gltf_buffer.c for views and accessors
 * and on the axis change in gltf_internal.h. */
#define _GNU_SOURCE // cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"
#include "gsioi_packed_record.h" // header-only: no symbol of libgsio's internals

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

// A hot loop kept out of its caller, whose many live values would make the
// compiler reload the loop's from the stack every vertex.
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/** A morph-target delta accessor (VEC3, `count` elements, min/max of the
 *  dense values given, as gsioi_gltf_min_max() finds them). Dense
 *  with its own view by default: Godot 3.2.3 reads sparse accessors, and
 *  accessors without a view, as garbage or hangs. With GSIO_GLTF_SPARSE_MORPH
 *  only the k elements listed in idx (strictly increasing) are stored: no
 *  view at all when k == 0 (the spec fills such an accessor with zeros),
 *  sparse when that is smaller than dense storage. */
static int delta_accessor(gltf_ctx *c, const float *dense, size_t count, const float mn[3],
                          const float mx[3], const uint32_t *idx, size_t k, float *scratch)
{
	size_t index_size = count <= 65535 ? 2 : 4;
	if (!c->sparse || (k > 0 && k * (12 + index_size) >= count * 12))
		return gsioi_gltf_float_accessor_mm(c, dense, count, 3, mn, mx, GLTF_ARRAY_BUFFER);
	cJSON *a = gsioi_gltf_jobj(c);
	gsioi_gltf_jnum(c, a, "componentType", GLTF_FLOAT);
	gsioi_gltf_jnum(c, a, "count", (double)count);
	gsioi_gltf_jstr(c, a, "type", "VEC3");
	gsioi_gltf_jset(c, a, "min", gsioi_gltf_jfloats(c, mn, 3));
	gsioi_gltf_jset(c, a, "max", gsioi_gltf_jfloats(c, mx, 3));
	if (k > 0) {
		// Indices (u16 or u32) into scratch, then the packed values.
		uint16_t *i16 = (uint16_t *)scratch;
		uint32_t *i32 = (uint32_t *)scratch;
		for (size_t i = 0; i < k; i++) {
			if (index_size == 2)
				i16[i] = (uint16_t)idx[i];
			else
				i32[i] = idx[i];
		}
		int iv = gsioi_gltf_add_view(c, scratch, k * index_size, 0);
		for (size_t i = 0; i < k; i++) memcpy(scratch + 3 * i, dense + 3 * (size_t)idx[i], 12);
		int vv = gsioi_gltf_add_view(c, scratch, k * 12, 0);
		if (iv < 0 || vv < 0) {
			cJSON_Delete(a);
			return -1;
		}
		cJSON *sp = gsioi_gltf_jobj(c), *si = gsioi_gltf_jobj(c), *sv = gsioi_gltf_jobj(c);
		gsioi_gltf_jnum(c, sp, "count", (double)k);
		gsioi_gltf_jnum(c, si, "bufferView", iv);
		gsioi_gltf_jnum(c, si, "componentType", index_size == 2 ? GLTF_UNSIGNED_SHORT : GLTF_UNSIGNED_INT);
		gsioi_gltf_jnum(c, sv, "bufferView", vv);
		gsioi_gltf_jset(c, sp, "indices", si);
		gsioi_gltf_jset(c, sp, "values", sv);
		gsioi_gltf_jset(c, a, "sparse", sp);
	}
	return gsioi_gltf_jpush(c, c->accessors, a);
}

/** A packed normal table (scene axes) turned into output axes and
 *  normalised once per entry, as gsioi_gltf_write_mesh() turns each vertex normal
 *  (normalize3, up when that fails: bad[i]), so a frame's normals become a
 *  lookup instead of a square root per vertex. An index is one byte: at
 *  most 256 entries are reachable. */
typedef struct normal_lut {
	const float *source; // the table converted, NULL before the first use
	float n[257][3];     // a row is read as 4 floats: one row more
	bool bad[256];
	bool any_bad;
} normal_lut;

static void normal_lut_fill(const gltf_ctx *c, normal_lut *t, const float *table, size_t count,
                            const float up_out[3])
{
	size_t n = count < 256 ? count : 256;
	memset(t->n, 0, sizeof(t->n));
	t->any_bad = false;
	for (size_t i = 0; i < n; i++) {
		xf_dir(c, table + 3 * i, t->n[i]);
		t->bad[i] = !normalize3(t->n[i], up_out);
		t->any_bad = t->any_bad || t->bad[i];
	}
	t->source = table;
}

/** The deltas of one frame, d[v] = a'[v] - b[v] for nv VEC3s, into out:
 *  a' is row v of `a`, or row idx[v] when idx is not NULL (a lookup table
 *  with one row more than idx reaches), turned as xf_pos turns a position
 *  (its components y, z, x when `conv`, then times scale; scale 1 and no
 *  turn for normals already in output axes). Their min/max as gsioi_gltf_min_max() finds them (the first value,
 *  then every smaller / larger one: the same floats, -0 and 0 included),
 *  and, when `moved` is not NULL, the vertices whose delta is not 0 listed
 *  there (returns how many; 0 without a list). One pass: the deltas are
 *  not read again for their bounds. */
static size_t deltas(const float *a, const uint8_t *idx, bool conv, float scale, const float *b,
                     size_t nv, float *out, float mn[3], float mx[3], uint32_t *moved)
{
	for (int k = 0; k < 3; k++) mn[k] = mx[k] = 0;
	if (!nv) return 0;
	size_t km = 0, v = 0;
	float l[4] = {0, 0, 0, 0}, h[4] = {0, 0, 0, 0};
#ifdef __SSE2__
	// A vertex a vector (the 4th lane is the next vertex's x, ignored), so
	// the last vertex goes to the scalar loop below. minps(d, lo) is
	// d < lo ? d : lo, the comparison gsioi_gltf_min_max() makes.
	if (nv >= 2) {
		const __m128 vs = _mm_set1_ps(scale), zero = _mm_setzero_ps();
		__m128 q = _mm_loadu_ps(idx ? a + 3 * (size_t)idx[0] : a);
		if (conv) q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
		__m128 d = _mm_sub_ps(_mm_mul_ps(q, vs), _mm_loadu_ps(b));
		__m128 lo = d, hi = d;
		// The common cases without a test per vertex: positions (no rows,
		// turned), packed normals (rows, not turned), no moved list.
		if (!moved && !idx && conv) {
			for (; v + 1 < nv; v++) {
				q = _mm_loadu_ps(a + 3 * v);
				q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
				d = _mm_sub_ps(_mm_mul_ps(q, vs), _mm_loadu_ps(b + 3 * v));
				_mm_storeu_ps(out + 3 * v, d); // lane 3 is rewritten by the next vertex
				lo = _mm_min_ps(d, lo);
				hi = _mm_max_ps(d, hi);
			}
		} else if (!moved && idx && !conv) {
			for (; v + 1 < nv; v++) {
				d = _mm_sub_ps(_mm_mul_ps(_mm_loadu_ps(a + 3 * (size_t)idx[v]), vs), _mm_loadu_ps(b + 3 * v));
				_mm_storeu_ps(out + 3 * v, d);
				lo = _mm_min_ps(d, lo);
				hi = _mm_max_ps(d, hi);
			}
		}
		for (; v + 1 < nv; v++) {
			q = _mm_loadu_ps(idx ? a + 3 * (size_t)idx[v] : a + 3 * v);
			if (conv) q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
			d = _mm_sub_ps(_mm_mul_ps(q, vs), _mm_loadu_ps(b + 3 * v));
			_mm_storeu_ps(out + 3 * v, d);
			lo = _mm_min_ps(d, lo);
			hi = _mm_max_ps(d, hi);
			if (moved) {
				moved[km] = (uint32_t)v; // kept when it moved
				km += (_mm_movemask_ps(_mm_cmpneq_ps(d, zero)) & 7) != 0;
			}
		}
		_mm_storeu_ps(l, lo);
		_mm_storeu_ps(h, hi);
	}
#endif
	for (; v < nv; v++) {
		const float *q = idx ? a + 3 * (size_t)idx[v] : a + 3 * v;
		float d[3] = {(conv ? q[1] : q[0]) * scale - b[3 * v], (conv ? q[2] : q[1]) * scale - b[3 * v + 1],
		              (conv ? q[0] : q[2]) * scale - b[3 * v + 2]};
		bool nz = false;
		for (int k = 0; k < 3; k++) {
			out[3 * v + k] = d[k];
			if (v == 0) l[k] = h[k] = d[k];
			l[k] = d[k] < l[k] ? d[k] : l[k];
			h[k] = d[k] > h[k] ? d[k] : h[k];
			nz = nz || d[k] != 0;
		}
		if (moved && nz) moved[km++] = (uint32_t)v;
	}
	for (int k = 0; k < 3; k++) mn[k] = l[k], mx[k] = h[k];
	return km;
}

/** Whether deltas_packed() reads frame `f` of mesh m: a packed frame
 *  without floats, with table normals, records holding 4 coordinates. */
static bool packed_fusable(const gsio_mesh *m, size_t f)
{
	const gsio_packed_format *pf = m->packed;
	const gsio_morph_frame *fr = &m->frames[f];
	return pf && fr->packed && !fr->positions && m->normals && pf->normal_table &&
	       (pf->coord_size == 1 || pf->coord_size == 2) && pf->vertex_stride >= 4 * pf->coord_size &&
	       pf->normal_offset < pf->vertex_stride;
}

/* A mesh's vertices that show one file vertex (split along UV seams: golem
 * has 819 for 284) get the same deltas from a packed frame when their base
 * position and normal are the same floats, bit for bit: the deltas are then
 * worked out once per file vertex and copied to each (deltas_packed()). */
typedef struct shared_deltas {
	size_t count;       // file vertices shown, 0: not used for this mesh
	uint32_t *record;   // per one: its record (the file vertex)
	uint32_t *first;    // per one: the first mesh vertex showing it (its base)
	uint32_t *slot;     // per mesh vertex: its file vertex's place in record
	float *d;           // scratch: count x 3 position deltas, 4 floats, count x 3
	                    // normal deltas, 4 floats (room for 16-byte stores)
} shared_deltas;

static void shared_deltas_free(shared_deltas *sd)
{
	free(sd->record);
	free(sd->first);
	free(sd->slot);
	free(sd->d);
	memset(sd, 0, sizeof(*sd));
}

/** Plans shared deltas for mesh m with base pos and nrm (output axes): left
 *  unused (count 0) when every vertex shows its own file vertex, when
 *  fewer than a fifth of the vertices share, or when two vertices of one
 *  file vertex differ in base; false only on a failed allocation. */
static bool shared_deltas_plan(gltf_ctx *c, const gsio_mesh *m, const float *pos, const float *nrm,
                               shared_deltas *sd)
{
	memset(sd, 0, sizeof(*sd));
	const uint32_t *sv = m->source_vertex;
	size_t nv = m->vertex_count, ns = m->packed ? m->packed->source_count : 0;
	if (!sv || !ns || nv < 2) return true;
	uint32_t *at = gsioi_gltf_xmalloc_array(c, ns, sizeof(uint32_t)); // file vertex -> place, UINT32_MAX: none yet
	sd->record = gsioi_gltf_xmalloc_array(c, ns < nv ? ns : nv, sizeof(uint32_t));
	sd->first = gsioi_gltf_xmalloc_array(c, ns < nv ? ns : nv, sizeof(uint32_t));
	sd->slot = gsioi_gltf_xmalloc_array(c, nv, sizeof(uint32_t));
	if (!at || !sd->record || !sd->first || !sd->slot) {
		free(at);
		shared_deltas_free(sd);
		return false;
	}
	for (size_t u = 0; u < ns; u++) at[u] = UINT32_MAX;
	size_t n = 0;
	bool same = true;
	for (size_t v = 0; v < nv && same; v++) {
		uint32_t u = sv[v];
		if (at[u] == UINT32_MAX) {
			at[u] = (uint32_t)n;
			sd->record[n] = u;
			sd->first[n++] = (uint32_t)v;
		}
		size_t b = sd->first[at[u]];
		sd->slot[v] = at[u];
		same = !memcmp(pos + 3 * v, pos + 3 * b, 3 * sizeof(float)) &&
		       (!nrm || !memcmp(nrm + 3 * v, nrm + 3 * b, 3 * sizeof(float)));
	}
	free(at);
	if (!same || 5 * n > 4 * nv) {
		shared_deltas_free(sd);
		return true;
	}
	sd->d = gsioi_gltf_xmalloc_array(c, 6 * n + 8, sizeof(float));
	if (!sd->d) {
		shared_deltas_free(sd);
		return false;
	}
	sd->count = n;
	return true;
}

/** The deltas worked out once per file vertex (sd->d) copied to each vertex
 *  showing it: POSITION into dp, NORMAL into dn. */
static void shared_deltas_copy(const shared_deltas *sd, size_t nv, float *dp, float *dn)
{
	const float *sp = sd->d, *sn = sd->d + 3 * sd->count + 4;
	const uint32_t *slot = sd->slot;
	size_t v = 0;
#ifdef __SSE2__
	// 4 floats a vertex, the 4th rewritten by the next: the last by memcpy.
	for (; v + 1 < nv; v++) {
		const size_t k = 3 * (size_t)slot[v];
		_mm_storeu_ps(dp + 3 * v, _mm_loadu_ps(sp + k));
		_mm_storeu_ps(dn + 3 * v, _mm_loadu_ps(sn + k));
	}
#endif
	for (; v < nv; v++) {
		memcpy(dp + 3 * v, sp + 3 * (size_t)slot[v], 3 * sizeof(float));
		memcpy(dn + 3 * v, sn + 3 * (size_t)slot[v], 3 * sizeof(float));
	}
}

#ifdef __SSE2__
/** A packed record's position delta (d: scaled and offset as libgsio
 *  unpacks it, turned and scaled as deltas() turns it, less the base bp)
 *  and normal delta (e: the table row of its index, row 0 when out of the
 *  table, less the base bn), as vectors of 3 floats and a 4th. */
static inline void record_deltas(const uint8_t *r, bool bytes, bool conv, __m128 vs, __m128 vo, __m128 vsc,
                                 const float (*rows)[3], size_t no, size_t nc, const float *bp,
                                 const float *bn, __m128 *d, __m128 *e)
{
	__m128 q = _mm_add_ps(_mm_mul_ps(gsioi_record_coords(r, bytes), vs), vo);
	if (conv) q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
	*d = _mm_sub_ps(_mm_mul_ps(q, vsc), _mm_loadu_ps(bp));
	unsigned ni = r[no];
	*e = _mm_sub_ps(_mm_loadu_ps(rows[ni < nc ? ni : 0]), _mm_loadu_ps(bn));
}

/** The min/max of the position (lo[0], hi[0]) and normal (lo[1], hi[1])
 *  deltas with d and e taken in, as deltas() takes them: the first pair
 *  starts them, then a value replaces the one kept only when strictly
 *  beyond it (_mm_min_ps(d, lo) is d < lo ? d : lo). */
static inline void delta_range_add(__m128 lo[2], __m128 hi[2], __m128 d, __m128 e, bool first)
{
	if (first) lo[0] = hi[0] = d, lo[1] = hi[1] = e;
	lo[0] = _mm_min_ps(d, lo[0]);
	hi[0] = _mm_max_ps(d, hi[0]);
	lo[1] = _mm_min_ps(e, lo[1]);
	hi[1] = _mm_max_ps(e, hi[1]);
}

/** The vectors' min/max into the scalar form (l, h) the loops after take. */
static inline void delta_range_store(const __m128 lo[2], const __m128 hi[2], float l[2][4], float h[2][4])
{
	for (int a = 0; a < 2; a++) {
		_mm_storeu_ps(l[a], lo[a]);
		_mm_storeu_ps(h[a], hi[a]);
	}
}
#endif

/** delta_range_add() for one pair of deltas (d[0] position, d[1] normal)
 *  without SSE2: the same comparisons. */
static inline void delta_range_add_scalar(float l[2][4], float h[2][4], const float d[2][3], bool first)
{
	for (int a = 0; a < 2; a++)
		for (int k = 0; k < 3; k++) {
			if (first) l[a][k] = h[a][k] = d[a][k];
			l[a][k] = d[a][k] < l[a][k] ? d[a][k] : l[a][k];
			h[a][k] = d[a][k] > h[a][k] ? d[a][k] : h[a][k];
		}
}

/** The min/max as gsioi_gltf_write_targets() takes them: position min, max, normal min, max. */
static void delta_range_out(float l[2][4], float h[2][4], float mm[4][3])
{
	for (int k = 0; k < 3; k++) {
		mm[0][k] = l[0][k], mm[1][k] = h[0][k];
		mm[2][k] = l[1][k], mm[3][k] = h[1][k];
	}
}

/** Both morph deltas of a packed frame in one pass over its records, where
 *  the long way unpacks the frame to floats and normal indices
 *  (gsio_mesh_frame_normal_indices) and reads them back twice through
 *  deltas(): on golem that pair would be a quarter of the conversion. The same
 *  floats as that way, operation for operation: a position is scale *
 *  raw + offset in float (as libgsio unpacks it), then turned and scaled
 *  as deltas() turns it, less the base; a normal is the table row of the
 *  record's index (0 when out of the table) from `lut`, less the base. The
 *  min/max as deltas() finds them. POSITION deltas into dp, NORMAL into
 *  dn; adds the vertices with a bad table normal to *bad. */
NOINLINE static void deltas_packed(const gltf_ctx *c, const gsio_mesh *m, const uint8_t *data,
                          const normal_lut *lut, const float *bp, const float *bn, float *dp,
                          float *dn, float mm[4][3], size_t *bad, const shared_deltas *sd)
{
	const gsio_packed_format *pf = m->packed;
	const uint32_t *sv = m->source_vertex;
	const size_t nv = m->vertex_count, st = pf->vertex_stride, no = pf->normal_offset,
	             nc = pf->normal_count;
	const bool bytes = pf->coord_size == 1, conv = c->convert_axes;
	const float sc = c->scale;
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++) mm[i][k] = 0;
	if (!nv) return;
	float l[2][4] = {{0}}, h[2][4] = {{0}};
	size_t v = 0;
#ifdef __SSE2__
	const __m128 vs = _mm_setr_ps(pf->scale[0], pf->scale[1], pf->scale[2], 0),
	             vo = _mm_setr_ps(pf->offset[0], pf->offset[1], pf->offset[2], 0), vsc = _mm_set1_ps(sc);
	const float(*rows)[3] = lut->n;
	__m128 lo[2] = {_mm_setzero_ps(), _mm_setzero_ps()}, hi[2] = {lo[0], lo[0]}, dv, ev;
	if (sd && sd->count) {
		// Once per file vertex, against the base of the first vertex
		// showing it, into sd->d, with the min/max; then copied to every
		// vertex. The min/max over the file vertices in the order they are
		// first shown is the one over the vertices in their order: a value
		// replaces the one kept only when strictly beyond it, so of equal
		// values (0 and -0) the first shown stays either way, and the
		// copies shown later equal a value seen before.
		const size_t n = sd->count;
		float *sp = sd->d, *sn = sd->d + 3 * n + 4; // a vector's room between
		for (size_t k = 0; k < n; k++) {
			const size_t b = 3 * (size_t)sd->first[k];
			record_deltas(data + (size_t)sd->record[k] * st, bytes, conv, vs, vo, vsc, rows, no, nc, bp + b,
			              bn + b, &dv, &ev);
			_mm_storeu_ps(sp + 3 * k, dv);
			_mm_storeu_ps(sn + 3 * k, ev);
			delta_range_add(lo, hi, dv, ev, k == 0);
		}
		shared_deltas_copy(sd, nv, dp, dn);
		v = nv;
	}
	// A vertex a vector, as in deltas(): 4 floats stored, the 4th rewritten
	// by the next vertex, so the last vertex goes to the loop below.
	for (; nv >= 2 && v + 1 < nv; v++) {
		record_deltas(data + (size_t)(sv ? sv[v] : v) * st, bytes, conv, vs, vo, vsc, rows, no, nc, bp + 3 * v,
		              bn + 3 * v, &dv, &ev);
		_mm_storeu_ps(dp + 3 * v, dv);
		_mm_storeu_ps(dn + 3 * v, ev);
		delta_range_add(lo, hi, dv, ev, v == 0);
	}
	delta_range_store(lo, hi, l, h);
#endif
	for (; v < nv; v++) {
		const uint8_t *r = data + (size_t)(sv ? sv[v] : v) * st;
		float p[3];
		for (int k = 0; k < 3; k++) {
			p[k] = pf->scale[k] * (float)gsioi_record_coord(r, bytes, k) + pf->offset[k];
		}
		unsigned ni = r[no];
		const float *row = lut->n[ni < nc ? ni : 0];
		float d[2][3] = {{(conv ? p[1] : p[0]) * sc - bp[3 * v], (conv ? p[2] : p[1]) * sc - bp[3 * v + 1],
		                  (conv ? p[0] : p[2]) * sc - bp[3 * v + 2]},
		                 {row[0] - bn[3 * v], row[1] - bn[3 * v + 1], row[2] - bn[3 * v + 2]}};
		memcpy(dp + 3 * v, d[0], sizeof(d[0]));
		memcpy(dn + 3 * v, d[1], sizeof(d[1]));
		delta_range_add_scalar(l, h, d, v == 0);
	}
	delta_range_out(l, h, mm);
	for (v = 0; lut->any_bad && v < nv; v++) {
		unsigned ni = data[(size_t)(sv ? sv[v] : v) * st + no];
		*bad += lut->bad[ni < nc ? ni : 0];
	}
}

/** Whether deltas_float_records() reads frame `f` of mesh m: a frame kept
 *  as float records with float normals (MDL7's), the mesh with normals. */
static bool float_records_fusable(const gsio_mesh *m, size_t f)
{
	const gsio_packed_format *pf = m->packed;
	const gsio_morph_frame *fr = &m->frames[f];
	return pf && fr->packed && !fr->positions && m->normals && pf->coord_size == 4 &&
	       pf->normal_floats;
}

/** Both morph deltas of a frame kept as float records, once per file vertex
 *  and copied to every vertex showing it (sd: planned, count > 0), where the
 *  long way (gsio_mesh_frame_get, then deltas() for each) works every
 *  vertex: the same floats, operation for operation: a position turned as
 *  xf_pos turns it (axes, then times the scale) less the base; a normal
 *  turned (xf_dir) and made unit (normalize3, up when it cannot be) less
 *  the base. The min/max as deltas() finds them (see deltas_packed() for
 *  why the file vertices' order gives the vertices'). POSITION deltas into
 *  dp, NORMAL into dn; adds the vertices with a bad normal to *bad. */
NOINLINE static void deltas_float_records(const gltf_ctx *c, const gsio_mesh *m, const uint8_t *data,
                                          const float *bp, const float *bn, float *dp, float *dn,
                                          float mm[4][3], size_t *bad, const shared_deltas *sd,
                                          const float up_out[3], uint8_t *bad_of)
{
	const gsio_packed_format *pf = m->packed;
	const size_t nv = m->vertex_count, n = sd->count, st = pf->vertex_stride, no = pf->normal_offset;
	const bool conv = c->convert_axes;
	const float sc = c->scale;
	float *sp = sd->d, *sn = sd->d + 3 * n + 4;
	float l[2][4] = {{0}}, h[2][4] = {{0}};
	size_t k = 0;
#ifdef __SSE2__
	// A file vertex a vector: the record's first 4 floats (x, y, z and the
	// normal's x) turned and scaled as deltas() does it, less the base (4
	// floats read: gsioi_gltf_write_mesh's base arrays hold one float more). The
	// normal is made unit in double, as normalize3() makes it.
	const __m128 vsc = _mm_set1_ps(sc);
	__m128 lo[2] = {_mm_setzero_ps(), _mm_setzero_ps()}, hi[2] = {lo[0], lo[0]};
	for (; k < n; k++) {
		const uint8_t *r = data + (size_t)sd->record[k] * st;
		const size_t b = 3 * (size_t)sd->first[k];
		__m128 q = _mm_loadu_ps((const float *)(const void *)r);
		if (conv) q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
		__m128 d = _mm_sub_ps(_mm_mul_ps(q, vsc), _mm_loadu_ps(bp + b));
		float raw[3], e[4] = {0, 0, 0, 0};
		memcpy(raw, r + no, 12);
		xf_dir(c, raw, e);
		bad_of[k] = !normalize3(e, up_out);
		__m128 g = _mm_sub_ps(_mm_loadu_ps(e), _mm_loadu_ps(bn + b));
		_mm_storeu_ps(sp + 3 * k, d); // the 4th float is rewritten by the next
		_mm_storeu_ps(sn + 3 * k, g);
		delta_range_add(lo, hi, d, g, k == 0);
	}
	delta_range_store(lo, hi, l, h);
#endif
	for (; k < n; k++) {
		const uint8_t *r = data + (size_t)sd->record[k] * st;
		const size_t b = 3 * (size_t)sd->first[k];
		float q[3], p[3], e[3];
		memcpy(q, r, 12);
		xf_dir(c, q, p);
		memcpy(q, r + no, 12);
		xf_dir(c, q, e);
		bad_of[k] = !normalize3(e, up_out);
		float d[2][3];
		for (int a = 0; a < 3; a++) d[0][a] = p[a] * sc - bp[b + (size_t)a], d[1][a] = e[a] - bn[b + (size_t)a];
		memcpy(sp + 3 * k, d[0], sizeof(d[0]));
		memcpy(sn + 3 * k, d[1], sizeof(d[1]));
		delta_range_add_scalar(l, h, d, k == 0);
	}
	shared_deltas_copy(sd, nv, dp, dn);
	size_t nbad = 0;
	for (size_t v = 0; v < nv; v++) nbad += bad_of[sd->slot[v]];
	*bad += nbad;
	delta_range_out(l, h, mm);
}

/** One morph target's delta accessor for frame data `a` (rows `rows` of
 *  it when not NULL) against base b (see deltas()): dense deltas go straight into the binary buffer when
 *  they fit in memory, else (and for sparse targets, which need the dense
 *  values first) through `dense`. Returns the accessor or -1. */
static int target_accessor(gltf_ctx *c, const float *a, const uint8_t *rows, bool conv, float scale,
                           const float *b, size_t nv, float *dense, uint32_t *idx, float *scratch)
{
	float mn[3], mx[3];
	size_t bytes = nv * 12; // nv * 24 bytes fit: the writer holds pos and nrm
	float *room = c->sparse ? NULL : gsioi_gltf_view_room(c, bytes);
	if (room) {
		deltas(a, rows, conv, scale, b, nv, room, mn, mx, NULL);
		int view = gsioi_gltf_add_claimed_view(c, bytes, GLTF_ARRAY_BUFFER);
		if (view < 0) return -1;
		return gsioi_gltf_float_accessor_json(c, view, nv, 3, mn, mx);
	}
	if (c->bin.failed) return -1;
	size_t k = deltas(a, rows, conv, scale, b, nv, dense, mn, mx, c->sparse ? idx : NULL);
	return delta_accessor(c, dense, nv, mn, mx, idx, k, scratch);
}

/** Morph targets of a mesh: one per frame, deltas from the base pose (pos,
 *  nrm: output axes). NULL on failure. */
cJSON *gsioi_gltf_write_targets(gltf_ctx *c, size_t mi, const float *pos, const float *nrm,
                          cJSON *names, size_t *bad_normals)
{
	const gsio_mesh *m = &c->s->meshes[mi];
	size_t nv = m->vertex_count;
	static const float up[3] = {0, 0, 1};
	float up_out[3];
	xf_dir(c, up, up_out);
	cJSON *targets = gsioi_gltf_jarr(c);
	float *dp = gsioi_gltf_xmalloc_array(c, nv, 3 * sizeof(float));
	float *dn = gsioi_gltf_xmalloc_array(c, nv, 3 * sizeof(float));
	float *scratch = gsioi_gltf_xmalloc_array(c, nv, 4 * sizeof(float));
	uint32_t *ip = gsioi_gltf_xmalloc_array(c, nv, sizeof(uint32_t));
	uint32_t *in = gsioi_gltf_xmalloc_array(c, nv, sizeof(uint32_t));
	// One frame at a time as floats (packed frames are expanded here only);
	// packed normals as table indices.
	float *fpos = gsioi_gltf_xmalloc_array(c, nv, 3 * sizeof(float));
	float *fnrm = gsioi_gltf_xmalloc_array(c, nv, 3 * sizeof(float));
	uint8_t *nidx = gsioi_gltf_xmalloc_array(c, nv, 1);
	normal_lut *lut = m->normals ? gsioi_gltf_xmalloc_array(c, 1, sizeof(normal_lut)) : NULL;
	bool ok = targets && dp && dn && scratch && ip && in && fpos && fnrm && nidx &&
	          (lut || !m->normals);
	if (lut) lut->source = NULL;
	shared_deltas sd = {0};
	bool sd_planned = false;
	uint8_t *bad_of = NULL; // float records: per shared file vertex, its normal was bad
	for (size_t f = 0; ok && f < m->frames_count; f++) {
		const gsio_morph_frame *fr = &m->frames[f];
		int pa, na = 0;
		float *room = NULL;
		if (!c->sparse && !sd_planned && float_records_fusable(m, f)) {
			// The plan first: float records take their own way only when
			// file vertices are shared (else the long way is as fast).
			if (!shared_deltas_plan(c, m, pos, nrm, &sd) ||
			    (sd.count && !(bad_of = gsioi_gltf_xmalloc_array(c, sd.count, 1)))) {
				ok = false;
				break;
			}
			sd_planned = true;
		}
		if (!c->sparse && sd.count && float_records_fusable(m, f) && (room = gsioi_gltf_view_room(c, 2 * nv * 12))) {
			float mm[4][3];
			deltas_float_records(c, m, fr->packed, pos, nrm, room, room + 3 * nv, mm, bad_normals, &sd, up_out,
			                     bad_of);
			int pv = gsioi_gltf_add_claimed_view(c, nv * 12, GLTF_ARRAY_BUFFER);
			pa = pv < 0 ? -1 : gsioi_gltf_float_accessor_json(c, pv, nv, 3, mm[0], mm[1]);
			int nview = gsioi_gltf_add_claimed_view(c, nv * 12, GLTF_ARRAY_BUFFER);
			na = nview < 0 ? -1 : gsioi_gltf_float_accessor_json(c, nview, nv, 3, mm[2], mm[3]);
		} else if (!c->sparse && packed_fusable(m, f) && (room = gsioi_gltf_view_room(c, 2 * nv * 12))) {
			// Both deltas straight from the records (see deltas_packed()),
			// in the two views the long way writes one after the other.
			const float *table = m->packed->normal_table[0];
			if (lut->source != table) normal_lut_fill(c, lut, table, m->packed->normal_count, up_out);
			if (!sd_planned && !shared_deltas_plan(c, m, pos, nrm, &sd)) {
				ok = false;
				break;
			}
			sd_planned = true;
			float mm[4][3];
			deltas_packed(c, m, fr->packed, lut, pos, nrm, room, room + 3 * nv, mm, bad_normals, &sd);
			int pv = gsioi_gltf_add_claimed_view(c, nv * 12, GLTF_ARRAY_BUFFER);
			pa = pv < 0 ? -1 : gsioi_gltf_float_accessor_json(c, pv, nv, 3, mm[0], mm[1]);
			int nview = gsioi_gltf_add_claimed_view(c, nv * 12, GLTF_ARRAY_BUFFER);
			na = nview < 0 ? -1 : gsioi_gltf_float_accessor_json(c, nview, nv, 3, mm[2], mm[3]);
		} else if (c->bin.failed) {
			ok = false;
			break;
		} else {
			const float *table = NULL;
			size_t table_count = 0;
			int indexed = m->normals ? gsio_mesh_frame_normal_indices(m, f, fpos, nidx, &table, &table_count) : 0;
			int got = indexed == 1 ? 1 : gsio_mesh_frame_get(m, f, fpos, m->normals ? fnrm : NULL);
			ok = got >= 0 && indexed >= 0;
			if (!ok) break;
			pa = target_accessor(c, fpos, NULL, c->convert_axes, c->scale, pos, nv, dp, ip, scratch);
			if (m->normals) {
				// The frame's normals in output axes: table lookups for a
				// packed frame, each vertex's own (converted here) for a float
				// frame, the base's when the frame has none.
				const float *fn = nrm;
				const uint8_t *rows = NULL;
				if (indexed == 1) {
					if (lut->source != table) normal_lut_fill(c, lut, table, table_count, up_out);
					for (size_t v = 0; lut->any_bad && v < nv; v++) *bad_normals += lut->bad[nidx[v]];
					fn = lut->n[0];
					rows = nidx;
				} else if (got == 1) {
					for (size_t v = 0; v < nv; v++) {
						xf_dir(c, fnrm + 3 * v, fnrm + 3 * v);
						if (!normalize3(fnrm + 3 * v, up_out)) (*bad_normals)++;
					}
					fn = fnrm;
				}
				na = target_accessor(c, fn, rows, false, 1, nrm, nv, dn, in, scratch);
			}
		}
		cJSON *t = gsioi_gltf_jobj(c);
		ok = pa >= 0 && na >= 0;
		gsioi_gltf_jnum(c, t, "POSITION", pa);
		if (m->normals) gsioi_gltf_jnum(c, t, "NORMAL", na);
		gsioi_gltf_jadd(c, targets, t);
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "frame%zu", f);
		gsioi_gltf_jadd(c, names, cJSON_CreateString(gsioi_gltf_or_default(fr->name, fallback)));
	}
	free(dp);
	free(dn);
	free(scratch);
	free(ip);
	free(in);
	free(fpos);
	free(fnrm);
	free(nidx);
	free(lut);
	free(bad_of);
	shared_deltas_free(&sd);
	if (!ok) {
		cJSON_Delete(targets);
		return NULL;
	}
	return targets;
}
