/* Text from files as UTF-8: names (nodes, meshes, materials, images, frames,
 * extras) and the file bytes that messages quote.
 *
 * GameStudio ran on Windows, whose "ANSI" code page in the West is CP1252:
 * a name stored with 0xFC is "ü", 0x80 is "€". Everything gsio writes (glTF
 * JSON, reports, messages) is UTF-8, so one decoder turns stored bytes into
 * UTF-8 (docs/DESIGN.md, Scene conventions). A valid UTF-8 sequence of two
 * to four bytes is kept as it is: files written by newer tools (gsio's own
 * writers, Blender's MD5 exporters) hold UTF-8, and a CP1252 name would
 * need a capital letter from 0xC2-0xF4 followed by one to three symbols
 * from 0x80-0xBF to look like one. Control characters (C0, DEL, C1 and
 * CP1252's five unassigned bytes) become '?': a name or message stays one
 * printable line for a terminal or a JSON report. */
#include "gsioi_internal.h"

#include <string.h>

// CP1252's 0x80-0x9F (0 where unassigned); 0xA0-0xFF are U+00A0-U+00FF.
static const uint16_t cp1252_high[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
    0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

// The length of the valid UTF-8 sequence of 2-4 bytes at p (n bytes left),
// 0 when there is none; C1 controls (U+0080-U+009F) count as none.
static size_t utf8_sequence(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len = c >= 0xC2 && c <= 0xDF   ? 2
	             : c >= 0xE0 && c <= 0xEF ? 3
	             : c >= 0xF0 && c <= 0xF4 ? 4
	                                      : 0;
	if (!len || len > n) return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xC0) != 0x80) return 0;
	if (c == 0xC2 && p[1] < 0xA0) return 0;              // C1 controls
	if (c == 0xE0 && p[1] < 0xA0) return 0;              // overlong
	if (c == 0xED && p[1] >= 0xA0) return 0;             // surrogates
	if (c == 0xF0 && p[1] < 0x90) return 0;              // overlong
	if (c == 0xF4 && p[1] >= 0x90) return 0;             // past U+10FFFF
	return len;
}

// The UTF-8 of code point u into out (u < 0x10000); its length.
static size_t put_utf8(uint32_t u, char out[3])
{
	if (u < 0x80) return out[0] = (char)u, 1;
	if (u < 0x800) {
		out[0] = (char)(0xC0 | (u >> 6));
		out[1] = (char)(0x80 | (u & 0x3F));
		return 2;
	}
	out[0] = (char)(0xE0 | (u >> 12));
	out[1] = (char)(0x80 | ((u >> 6) & 0x3F));
	out[2] = (char)(0x80 | (u & 0x3F));
	return 3;
}

size_t gsioi_text_utf8(char *dst, size_t size, const char *src, size_t n)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;
	for (size_t i = 0; i < n && p[i];) {
		char ch[4];
		size_t len = utf8_sequence(p + i, n - i), take = len ? len : 1;
		if (len) {
			memcpy(ch, p + i, len);
		} else if (p[i] < 0x20 || p[i] == 0x7F) {
			ch[0] = '?', len = 1;
		} else if (p[i] < 0x80) {
			ch[0] = (char)p[i], len = 1;
		} else {
			uint32_t u = p[i] >= 0xA0 ? p[i] : cp1252_high[p[i] - 0x80];
			len = u ? put_utf8(u, ch) : (ch[0] = '?', 1);
		}
		if (dst && o + len >= size) break; // a whole character or none
		if (dst) memcpy(dst + o, ch, len);
		o += len;
		i += take;
	}
	if (dst && size) dst[o] = 0;
	return o;
}

// CP1252's byte for code point u, 0 when it has none.
static unsigned char cp1252_byte(uint32_t u)
{
	if (u < 0x80 || (u >= 0xA0 && u <= 0xFF)) return (unsigned char)u;
	for (unsigned b = 0; b < 32; b++)
		if (cp1252_high[b] && cp1252_high[b] == u) return (unsigned char)(0x80 + b);
	return 0;
}

// The code point of the UTF-8 sequence of len bytes at p.
static uint32_t utf8_code(const unsigned char *p, size_t len)
{
	uint32_t u = len == 2 ? p[0] & 0x1Fu : len == 3 ? p[0] & 0x0Fu : p[0] & 0x07u;
	for (size_t i = 1; i < len; i++) u = (u << 6) | (p[i] & 0x3Fu);
	return u;
}

bool gsioi_text_cp1252(char *dst, size_t size, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t n = strlen(src), o = 0, i = 0;
	bool encoded = true;
	for (; i < n && o + 1 < size; o++) { // one byte a character
		size_t len = utf8_sequence(p + i, n - i);
		unsigned char b = len ? cp1252_byte(utf8_code(p + i, len)) : p[i];
		if (!b) {
			encoded = false;
			break;
		}
		dst[o] = (char)b;
		i += len ? len : 1;
	}
	if (encoded) {
		if (size) dst[o] = 0;
		return true;
	}
	// A character CP1252 has not: the UTF-8 kept (gsioi_text_utf8 reads it
	// back), cut before a character that would not fit whole.
	o = 0;
	for (i = 0; i < n;) {
		size_t len = utf8_sequence(p + i, n - i);
		if (!len) len = 1;
		if (o + len >= size) break;
		memcpy(dst + o, p + i, len);
		o += len;
		i += len;
	}
	if (size) dst[o] = 0;
	return false;
}

char *gsioi_text_utf8_dup(gsio_arena *arena, const char *src, size_t n, gsio_error *err)
{
	size_t len = gsioi_text_utf8(NULL, 0, src, n);
	char *out = gsioi_arena_alloc(arena, len + 1, err);
	if (out) gsioi_text_utf8(out, len + 1, src, n);
	return out;
}

void gsioi_text_sanitize(char *s, size_t size)
{
	// Messages are at most a few hundred bytes: a copy on the stack, cut
	// (at a character) where it would not fit.
	char copy[1024];
	const char *end = memchr(s, 0, size);
	size_t n = end ? (size_t)(end - s) : size;
	if (n >= sizeof(copy)) n = sizeof(copy) - 1;
	memcpy(copy, s, n);
	gsioi_text_utf8(s, size, copy, n);
}

void gsioi_text_fold(char *s)
{
	unsigned char *p = (unsigned char *)s;
	for (; *p; p++) {
		if (*p >= 'A' && *p <= 'Z') {
			*p = (unsigned char)(*p + ('a' - 'A'));
		} else if (p[0] == 0xC3 && p[1] >= 0x80 && p[1] <= 0x9E && p[1] != 0x97) {
			p[1] = (unsigned char)(p[1] + 0x20); // À-Þ (not ×): à-þ
			p++;
		} else if (p[0] == 0xC5 && (p[1] == 0xA0 || p[1] == 0x92 || p[1] == 0xBD)) {
			p[1] = (unsigned char)(p[1] + 1); // Š Œ Ž: š œ ž
			p++;
		} else if (p[0] == 0xC5 && p[1] == 0xB8) {
			p[0] = 0xC3, p[1] = 0xBF; // Ÿ: ÿ
			p++;
		}
	}
}
