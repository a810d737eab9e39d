/* A float as the text printf("%.17g") gives, without printf for the floats
 * a glTF is made of.
 *
 * The writer prints every accessor's min/max with 17 significant digits (the
 * text must read back as exactly the float). glibc's printf does that with
 * multi-precision arithmetic, a few thousand instructions a number, which
 * was a tenth of converting a model with a few hundred morph targets. A
 * float is m * 2^e with m < 2^24, so for magnitudes from 1e-4 to 1e15 the
 * 17 digits are one 128-bit product and shift, rounded half to even as
 * printf rounds; the text is then laid out as %g lays it out (fixed
 * notation in that range, trailing zeros cut). Everything else (zero,
 * subnormals, tiny and huge values, a compiler without 128-bit integers)
 * goes to printf. Hand-written because no C library in Debian prints
 * exactly printf's %.17g faster (Ryu and double-conversion print the
 * shortest text, or C++); test_gltf_morph checks it against printf. */
#include "json_float.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

// -- printf, for every float

static size_t printf_float(float f, char out[GLTF_JSON_FLOAT_MAX])
{
	char buf[48];
	snprintf(buf, sizeof(buf), "%.17g", (double)f);
	// Whatever the C locale's decimal point is, the JSON gets a '.'.
	size_t n = 0;
	bool in_point = false;
	for (const char *p = buf; *p && n + 1 < GLTF_JSON_FLOAT_MAX; p++) {
		bool plain = (*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == 'e' || *p == 'E';
		if (plain) {
			out[n++] = *p;
			in_point = false;
		} else if (!in_point) {
			out[n++] = '.';
			in_point = true;
		}
	}
	out[n] = 0;
	return n;
}

// -- Integer digits, for 1e-4 <= |f| < 1e15

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

#define E16 10000000000000000ull
#define E17 100000000000000000ull

static u128 pow10_128(int p)
{
	u128 r = 1;
	for (int i = 0; i < p; i++) r *= 10;
	return r;
}

/** The 17 significant digits of |f| (an integer in [1e16, 1e17)) and the
 *  decimal exponent of the first, as printf rounds them: the exact value
 *  times 10^(16 - q), rounded half to even. */
static void digits17(uint32_t mant, int e2, int q, uint64_t *digits, int *exp10)
{
	for (;;) {
		u128 n = (u128)mant * pow10_128(16 - q), t, rem = 0, half = 0;
		if (e2 >= 0) {
			t = n << e2;
		} else {
			t = n >> -e2;
			rem = n & (((u128)1 << -e2) - 1);
			half = (u128)1 << (-e2 - 1);
		}
		// t is the value times 10^(16 - q), truncated: 17 digits when q is
		// the exponent; the estimate is off by one at most.
		if (t >= E17) {
			q++;
			continue;
		}
		if (t < E16) {
			q--;
			continue;
		}
		uint64_t d = (uint64_t)t;
		if (rem > half || (rem == half && rem != 0 && (d & 1))) d++;
		if (d == E17) { // 9.99...95 rounds up to 1.0e(q+1)
			d = E16;
			q++;
		}
		*digits = d;
		*exp10 = q;
		return;
	}
}

/** %.17g of a normal float with 1e-4 <= |f| < 1e15: fixed notation with
 *  16 - q decimals (q the exponent after rounding, -4..14), trailing zeros
 *  and a bare point cut. */
static size_t digits_float(float f, char out[GLTF_JSON_FLOAT_MAX])
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof(bits));
	uint32_t biased = (bits >> 23) & 0xFF;
	uint32_t mant = (bits & 0x7FFFFF) | 0x800000;
	int b = (int)biased - 127; // |f| in [2^b, 2^(b+1))
	// floor(b * log10(2)), b in -14..49: the first digit's exponent or one less.
	int q = (b * 78913) >> 18;
	uint64_t d;
	digits17(mant, b - 23, q, &d, &q);
	char dig[17];
	for (int i = 16; i >= 0; i--, d /= 10) dig[i] = (char)('0' + d % 10);
	int last = 16; // the last digit kept: trailing zeros of the fraction are cut
	while (last > (q > 0 ? q : 0) && dig[last] == '0') last--;
	size_t n = 0;
	if (bits >> 31) out[n++] = '-';
	if (q >= 0) {
		for (int i = 0; i <= q; i++) out[n++] = dig[i];
		if (last > q) {
			out[n++] = '.';
			for (int i = q + 1; i <= last; i++) out[n++] = dig[i];
		}
	} else {
		out[n++] = '0';
		out[n++] = '.';
		for (int i = 0; i < -q - 1; i++) out[n++] = '0';
		for (int i = 0; i <= last; i++) out[n++] = dig[i];
	}
	out[n] = 0;
	return n;
}
#endif

// -- Entry

size_t gsioi_gltf_json_float(float f, char out[GLTF_JSON_FLOAT_MAX])
{
	if (!isfinite(f)) f = 0;
#ifdef __SIZEOF_INT128__
	double a = fabs((double)f);
	if (a >= 1e-4 && a < 1e15) return digits_float(f, out);
#endif
	return printf_float(f, out);
}
