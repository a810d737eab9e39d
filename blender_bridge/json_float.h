/* A float as JSON text for the glTF writer (internal to libgsio, not
 * installed). */
#ifndef GSIO_JSON_FLOAT_H
#define GSIO_JSON_FLOAT_H

#include <stddef.h>

/** Room for any text gsioi_gltf_json_float() writes, with its terminating 0. */
#define GLTF_JSON_FLOAT_MAX 32

/** Writes f as printf("%.17g", (double)f) prints it in the C locale, with
 *  '.' as the decimal point whatever the locale says, and returns its
 *  length. A non-finite f is written as 0 (JSON has no NaN). 17 significant
 *  digits name every double, so the text reads back as exactly f. */
size_t gsioi_gltf_json_float(float f, char out[GLTF_JSON_FLOAT_MAX]);

#endif
