/* gsio_bench: stb_image (Debian's libstb-dev header), compiled here for the
 * standard PNG encoder's side of a goal (bench_pngref.c): a decoder of its
 * own, apart from the library's readers, whatever they become. Third-party
 * code written to other warning standards: this file is compiled without
 * warnings (tests/bench/CMakeLists.txt). */
#include "bench_stb.h"

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#define STBI_ONLY_TGA
#define STBI_ONLY_BMP
#include <stb/stb_image.h>

uint8_t *bench_stb_decode(const uint8_t *data, size_t size, int *width, int *height, int *channels)
{
	if (size > 0x7FFFFFFF) return NULL;
	return stbi_load_from_memory(data, (int)size, width, height, channels, 0);
}

void bench_stb_free(uint8_t *pixels)
{
	stbi_image_free(pixels);
}
