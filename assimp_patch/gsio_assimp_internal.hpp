/* gsio_assimp internals shared by the adapter's C++ files (not installed). */
#ifndef GSIO_ASSIMP_INTERNAL_HPP
#define GSIO_ASSIMP_INTERNAL_HPP

#include "gsio_assimp.h"

#include <assimp/matrix4x4.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace gsioa {

/** A gsio_error travelling as a C++ exception inside the adapter. */
struct gsio_failure {
	gsio_error err;
	explicit gsio_failure(const gsio_error &e) : err(e) {}
};

/** Fills err with a code and a message raised by the adapter itself. */
inline void set_error(gsio_error *err, gsio_error_code code, const char *msg)
{
	gsio_error_clear(err);
	err->code = code;
	snprintf(err->message, sizeof(err->message), "%s", msg);
	err->offset = -1;
	err->src_file = __FILE__;
	err->src_line = __LINE__;
}

/** gsio_error_format() as a std::string. */
inline std::string format_error(const gsio_error &err)
{
	char buf[1024];
	gsio_error_format(&err, buf, sizeof(buf));
	return buf;
}

/** The message of the last failure of gsio_ai_import_file() or
 *  gsio_ai_export_scene() in this thread (gsio_ai_get_error_string()). */
std::string &last_error();

/** A column-major gsio matrix as Assimp's row-major aiMatrix4x4, and back. */
aiMatrix4x4 mat_from_colmajor(const float m[16]);
void mat_to_colmajor(const aiMatrix4x4 &a, float m[16]);
/** The root transform of gsio's aiScenes: (x, y, z) -> (x, z, -y). */
aiMatrix4x4 z_up_to_y_up();

} // namespace gsioa

#endif
