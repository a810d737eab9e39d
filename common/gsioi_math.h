/* Quaternion and matrix maths shared by gsio's importers, writers and the
 * Assimp adapter (gmath.c). Internal: not installed, not exported. */
#ifndef GSIOI_MATH_H
#define GSIOI_MATH_H

#include <math.h>

#if defined(__MINGW32__) && !defined(__cplusplus)
// mingw-w64's isfinite() and signbit() pass a double through their float
// branch (a -Wconversion warning); GCC's builtins give the same answers.
#undef isfinite
#define isfinite(x) __builtin_isfinite(x)
#undef signbit
#define signbit(x) __builtin_signbit(x)
/* mingw-w64's sin() and cos() reduce the argument with the x87's 66-bit
 * pi: cos(pi / 2) came out 6.1230e-17 against glibc's correctly rounded
 * 6.1232e-17, enough to change a level's quaternions in the last place.
 * gsioi_sin/gsioi_cos (gmath.c) reduce with a 128-bit pi/2 and give the
 * same doubles as glibc. */
double gsioi_sin(double x);
double gsioi_cos(double x);
#define sin(x) gsioi_sin(x)
#define cos(x) gsioi_cos(x)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Quaternions (x, y, z, w) and column-major 4x4 matrices. */
void gsioi_quat_mul(const float a[4], const float b[4], float out[4]);
void gsioi_quat_rotate(const float q[4], const float v[3], float out[3]);
void gsioi_quat_normalize(float q[4]);
void gsioi_mat4_from_trs(const float t[3], const float r[4], const float s[3], float out[16]);
void gsioi_mat4_mul(const float a[16], const float b[16], float out[16]);
/** Inverse of an affine matrix; returns 0, or -1 (out = identity) when singular. */
int gsioi_mat4_invert(const float m[16], float out[16]);

#ifdef __cplusplus
}
#endif
#endif
