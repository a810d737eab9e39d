/* stb_image (Debian libstb-dev) compiled into a test as its reference
 * decoder, with static linkage and no file I/O; the test names the one
 * format it needs (STBI_ONLY_TGA, STBI_ONLY_BMP) before including this.
 * Third-party code: its warnings are silenced here only. Include it once,
 * in the test's one source file. */
#ifndef GSIO_TEST_STB_IMAGE_REF_H
#define GSIO_TEST_STB_IMAGE_REF_H

#if defined(__GNUC__) || defined(__clang__)
// Reported at the end of the file, so not inside push/pop: stb_image
// declares a few functions it never defines with STB_IMAGE_STATIC.
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#include <stb/stb_image.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* stb_image's RGBA pixels of the file (NULL when it refuses it; free with
 * stbi_image_free). */
static uint8_t *stb_rgba(const uint8_t *d, size_t size, int *w, int *h)
{
	int comp;
	return stbi_load_from_memory(d, (int)size, w, h, &comp, 4);
}

#endif
