/* WMP dialect A: blocks given as planes become vertex lists and polygon
 * faces, by the Quake brush algorithm (docs/FORMATS.md §7.8): each
 * plane's huge base quad is clipped by every other plane's inside half-space
 * (n.x <= d), what remains is that plane's face. Plane normals
 * (p1-p2)x(p3-p2) point out of the block (the A4 manual, Quake's MAP.C). Faces are
 * written clockwise seen from outside, like dialect B's, and every face's
 * texture vectors are the Quake base axes of its normal (as WED stores
 * them in B), so one projection rule serves all dialects. */
#include "wmp_internal.h"

#include <math.h>

/** Planes one block may have: the clipping is quadratic in them. */
#define MAX_PLANES 1024
/** Half the size of the base quad: beyond any level (WED's grid is +-2^15). */
#define BOGUS 262144.0
#define EPS 0.01

typedef struct plane {
	double n[3], d;
} plane;

static double dot3(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double *a, const double *b, double *o)
{
	o[0] = a[1] * b[2] - a[2] * b[1];
	o[1] = a[2] * b[0] - a[0] * b[2];
	o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Quake's TextureAxisFromPlane table: (normal, u, v) per axis direction;
 * the largest dot product wins, the first entry on ties. */
static void base_axes(const double n[3], double u[3], double v[3])
{
	static const double t[6][3][3] = {
	    {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}},  {{0, 0, -1}, {1, 0, 0}, {0, -1, 0}},
	    {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}},  {{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}},
	    {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},  {{0, -1, 0}, {1, 0, 0}, {0, 0, -1}},
	};
	double best = 0;
	int bi = 0;
	for (int i = 0; i < 6; i++) {
		double d = dot3(n, t[i][0]);
		if (d > best) best = d, bi = i;
	}
	memcpy(u, t[bi][1], 3 * sizeof(double));
	memcpy(v, t[bi][2], 3 * sizeof(double));
}

/* Keeps the part of poly (n points, xyz) with pl.n.x - pl.d <= EPS. */
static size_t clip(const double *in, size_t n, const plane *pl, double *out)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const double *a = in + 3 * i, *b = in + 3 * ((i + 1) % n);
		double da = dot3(pl->n, a) - pl->d, db = dot3(pl->n, b) - pl->d;
		if (da <= EPS) memcpy(out + 3 * m++, a, 3 * sizeof(double));
		if ((da < -EPS && db > EPS) || (da > EPS && db < -EPS)) {
			double t = da / (da - db);
			for (int k = 0; k < 3; k++) out[3 * m + k] = a[k] + t * (b[k] - a[k]);
			m++;
		}
	}
	return m;
}

bool gsioi_wmp_planes_to_faces(gsio_wmp_file *f, gsio_wmp_block *b, const char *name,
                               gsio_error *err)
{
	size_t np = b->planes_count;
	if (np > MAX_PLANES) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, name, -1, "block %u has %zu planes (gsio takes %d)", b->index,
		          np, MAX_PLANES);
		return false;
	}
	gsio_arena *a = f->arena;
	plane *pl = GSIO_NEW_ARRAY(a, plane, np, err);
	bool *use = GSIO_NEW_ARRAY(a, bool, np, err);
	// A face has at most one point per plane plus the base quad's four.
	double *w0 = GSIO_NEW_ARRAY(a, double, 3 * (np + 8), err);
	double *w1 = GSIO_NEW_ARRAY(a, double, 3 * (np + 8), err);
	double *verts = GSIO_NEW_ARRAY(a, double, 3 * np * (np + 8), err);
	GSIO_CHECK(pl && use && w0 && w1 && verts);
	for (size_t i = 0; i < np; i++) {
		const double(*p)[3] = b->planes[i].p;
		double t1[3], t2[3], n[3];
		for (int k = 0; k < 3; k++) t1[k] = p[0][k] - p[1][k], t2[k] = p[2][k] - p[1][k];
		cross3(t1, t2, n);
		double len = sqrt(dot3(n, n));
		b->planes[i].face = -1;
		if (!(len > 1e-9) || !isfinite(len)) continue; // degenerate: skipped, as ParseBrush does
		for (int k = 0; k < 3; k++) pl[i].n[k] = n[k] / len;
		pl[i].d = dot3(pl[i].n, p[1]);
		use[i] = true;
		for (size_t j = 0; j < i; j++) // "brush with duplicate plane"
			if (use[j] && fabs(pl[j].d - pl[i].d) < EPS && dot3(pl[j].n, pl[i].n) > 1 - 1e-9)
				use[i] = false;
	}
	b->faces = GSIO_NEW_ARRAY(a, gsio_wmp_face, np, err);
	GSIO_CHECK(b->faces);
	size_t nv = 0, nf = 0;
	for (size_t i = 0; i < np; i++) {
		if (!use[i]) continue;
		const double *n = pl[i].n;
		// BaseWindingForPlane: a quad of half-size BOGUS around n*d.
		int axis = fabs(n[2]) >= fabs(n[0]) && fabs(n[2]) >= fabs(n[1]) ? 2 : 0;
		double up[3] = {axis == 2 ? 1 : 0, 0, axis == 2 ? 0 : 1}, right[3], org[3];
		double v = dot3(up, n);
		for (int k = 0; k < 3; k++) up[k] -= v * n[k];
		double ul = sqrt(dot3(up, up));
		for (int k = 0; k < 3; k++) up[k] = up[k] / ul * BOGUS, org[k] = n[k] * pl[i].d;
		cross3(up, n, right);
		size_t m = 4;
		for (int k = 0; k < 3; k++) {
			w0[k] = org[k] - right[k] + up[k];
			w0[3 + k] = org[k] + right[k] + up[k];
			w0[6 + k] = org[k] + right[k] - up[k];
			w0[9 + k] = org[k] - right[k] - up[k];
		}
		for (size_t j = 0; j < np && m >= 3; j++) {
			if (j == i || !use[j]) continue;
			m = clip(w0, m, &pl[j], w1);
			memcpy(w0, w1, 3 * m * sizeof(double));
		}
		if (m < 3) continue;
		// Clockwise seen from outside: the Newell normal must point inward.
		double nw[3] = {0, 0, 0};
		for (size_t k = 0; k < m; k++) {
			const double *p = w0 + 3 * k, *q = w0 + 3 * ((k + 1) % m);
			nw[0] += (p[1] - q[1]) * (p[2] + q[2]);
			nw[1] += (p[2] - q[2]) * (p[0] + q[0]);
			nw[2] += (p[0] - q[0]) * (p[1] + q[1]);
		}
		if (dot3(nw, n) <= 1e-6) {
			if (dot3(nw, n) > -1e-6) continue; // a sliver: no area
		} else {
			for (size_t k = 0; k < m / 2; k++)
				for (int c = 0; c < 3; c++) {
					double t = w0[3 * k + c];
					w0[3 * k + c] = w0[3 * (m - 1 - k) + c];
					w0[3 * (m - 1 - k) + c] = t;
				}
		}
		uint32_t *idx = GSIO_NEW_ARRAY(a, uint32_t, m, err);
		GSIO_CHECK(idx);
		for (size_t k = 0; k < m; k++) {
			const double *p = w0 + 3 * k;
			size_t found = nv;
			for (size_t q = 0; q < nv && found == nv; q++) // weld shared corners
				if (fabs(verts[3 * q] - p[0]) < EPS && fabs(verts[3 * q + 1] - p[1]) < EPS &&
				    fabs(verts[3 * q + 2] - p[2]) < EPS)
					found = q;
			if (found == nv) memcpy(verts + 3 * nv++, p, 3 * sizeof(double));
			idx[k] = (uint32_t)found;
		}
		b->faces[nf].indices = idx;
		b->faces[nf].indices_count = m;
		b->planes[i].face = (int32_t)nf++;
	}
	b->faces_count = nf;
	b->vertices = verts;
	b->vertices_count = nv;
	// Surfaces follow their planes; a plane without a face loses its surface.
	size_t kept = 0;
	for (size_t i = 0; i < b->surfaces_count; i++) {
		gsio_wmp_surface s = b->surfaces[i];
		int32_t face = s.face < np ? b->planes[s.face].face : -1;
		if (face < 0) continue;
		s.face = (uint32_t)face;
		double u[3], v[3];
		base_axes(pl[b->surfaces[i].face].n, u, v);
		for (int k = 0; k < 3; k++) s.u[k] = u[k], s.v[k] = v[k];
		s.u[3] = s.v[3] = 0;
		b->surfaces[kept++] = s;
	}
	b->surfaces_count = kept;
	return true;
}
