/* gsio_bench: stb_image's TGA and BMP readers (bench_stb.c). */
#ifndef GSIO_BENCH_STB_H
#define GSIO_BENCH_STB_H

#include <stddef.h>
#include <stdint.h>

/** Decodes a TGA or BMP file in memory into width x height pixels of
 *  *channels 8-bit samples each (as the file has them: 3 for RGB, 4 with
 *  alpha), top row first; NULL when it cannot. Free with bench_stb_free. */
uint8_t *bench_stb_decode(const uint8_t *data, size_t size, int *width, int *height, int *channels);
void bench_stb_free(uint8_t *pixels);

#endif
