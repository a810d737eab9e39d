/* Quaternion and 4x4 matrix helpers for writers. Quaternions are x, y, z, w;
 * matrices column-major (m[col * 4 + row]), as in glTF. Products are formed
 * in double: the inputs are floats, and one rounding per result is enough. */
#include "gsio.h"
#include "gsioi_math.h"

#include <math.h>
#include <string.h>

// -- Quaternions

void gsioi_quat_mul(const float a[4], const float b[4], float out[4])
{
	double ax = a[0], ay = a[1], az = a[2], aw = a[3];
	double bx = b[0], by = b[1], bz = b[2], bw = b[3];
	float r[4] = {
	    (float)(aw * bx + ax * bw + ay * bz - az * by),
	    (float)(aw * by - ax * bz + ay * bw + az * bx),
	    (float)(aw * bz + ax * by - ay * bx + az * bw),
	    (float)(aw * bw - ax * bx - ay * by - az * bz),
	};
	memcpy(out, r, sizeof(r)); // out may alias a or b
}

void gsioi_quat_rotate(const float q[4], const float v[3], float out[3])
{
	// v' = v + 2w (u x v) + 2 u x (u x v), u the vector part.
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double vx = v[0], vy = v[1], vz = v[2];
	double tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
	float r[3] = {
	    (float)(vx + w * tx + (y * tz - z * ty)),
	    (float)(vy + w * ty + (z * tx - x * tz)),
	    (float)(vz + w * tz + (x * ty - y * tx)),
	};
	memcpy(out, r, sizeof(r));
}

void gsioi_quat_normalize(float q[4])
{
	double l = 0;
	for (int k = 0; k < 4; k++) l += (double)q[k] * q[k];
	l = sqrt(l);
	if (!(l > 1e-12) || !isfinite(l)) { // nothing to normalise: identity
		q[0] = q[1] = q[2] = 0;
		q[3] = 1;
		return;
	}
	for (int k = 0; k < 4; k++) q[k] = (float)(q[k] / l);
}

// -- Matrices

void gsioi_mat4_from_trs(const float t[3], const float r[4], const float s[3], float out[16])
{
	double x = r[0], y = r[1], z = r[2], w = r[3];
	double m[3][3] = { // m[row][col]
	    {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
	    {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
	    {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)},
	};
	for (int col = 0; col < 3; col++) {
		for (int row = 0; row < 3; row++) out[col * 4 + row] = (float)(m[row][col] * s[col]);
		out[col * 4 + 3] = 0;
	}
	out[12] = t[0];
	out[13] = t[1];
	out[14] = t[2];
	out[15] = 1;
}

void gsioi_mat4_mul(const float a[16], const float b[16], float out[16])
{
	float r[16];
	for (int col = 0; col < 4; col++)
		for (int row = 0; row < 4; row++) {
			double sum = 0;
			for (int k = 0; k < 4; k++) sum += (double)a[k * 4 + row] * b[col * 4 + k];
			r[col * 4 + row] = (float)sum;
		}
	memcpy(out, r, sizeof(r)); // out may alias a or b
}

int gsioi_mat4_invert(const float m[16], float out[16])
{
	// Affine: [A | t; 0 1]^-1 = [A^-1 | -A^-1 t; 0 1], A^-1 by cofactors.
	double a[3][3];
	for (int row = 0; row < 3; row++)
		for (int col = 0; col < 3; col++) a[row][col] = m[col * 4 + row];
	double c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
	double c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2];
	double c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
	double det = a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02;
	float r[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
	if (!isfinite(det) || fabs(det) < 1e-30) {
		memcpy(out, r, sizeof(r));
		return -1;
	}
	double inv[3][3] = {
	    {c00 / det, (a[0][2] * a[2][1] - a[0][1] * a[2][2]) / det,
	     (a[0][1] * a[1][2] - a[0][2] * a[1][1]) / det},
	    {c01 / det, (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det,
	     (a[0][2] * a[1][0] - a[0][0] * a[1][2]) / det},
	    {c02 / det, (a[0][1] * a[2][0] - a[0][0] * a[2][1]) / det,
	     (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det},
	};
	for (int row = 0; row < 3; row++) {
		double t = 0;
		for (int col = 0; col < 3; col++) {
			r[col * 4 + row] = (float)inv[row][col];
			t -= inv[row][col] * m[12 + col];
		}
		r[12 + row] = (float)t;
	}
	memcpy(out, r, sizeof(r));
	return 0;
}

#if defined(__MINGW32__)
// -- sin and cos for mingw-w64 (gsioi_math.h)
#undef sin
#undef cos

/* x = k * pi/2 + *r, with k's last two bits returned and r in long double
 * (64-bit mantissa). pi/2 in three parts, the first two of 32 bits so that
 * k * part is exact for |k| < 2^31 (|x| < 3e9; beyond, the libm's own
 * reduction). The bits of pi are those of its hexadecimal expansion
 * 3.243F6A88 85A308D3 13198A2E 03707344 A4093822 ... halved. */
static int reduce(double x, long double *r)
{
	static const long double p1 = 0x1.921FB544p0L, p2 = 0x0.42D18469p-32L,
	                         p3 = 0x0.898CC51701B839A2p-64L;
	long double k = nearbyintl((long double)x * 0x1.45F306DC9C882A54p-1L); // 2/pi
	*r = (((long double)x - k * p1) - k * p2) - k * p3;
	return (int)((long long)k & 3);
}

double gsioi_sin(double x)
{
	if (!(fabs(x) < 3e9)) return sin(x);
	long double r;
	switch (reduce(x, &r)) {
	case 0: return (double)sinl(r);
	case 1: return (double)cosl(r);
	case 2: return (double)-sinl(r);
	default: return (double)-cosl(r);
	}
}

double gsioi_cos(double x)
{
	if (!(fabs(x) < 3e9)) return cos(x);
	long double r;
	switch (reduce(x, &r)) {
	case 0: return (double)cosl(r);
	case 1: return (double)-sinl(r);
	case 2: return (double)-cosl(r);
	default: return (double)sinl(r);
	}
}
#endif
