/* placeholder */
#include "wmp_internal.h"
gsio_scene *gsio_wmp_to_scene(const gsio_wmp_file *file, const char *path,
                              const gsio_opts *opts, gsio_error *err)
{
	(void)file; (void)path; (void)opts;
	GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, path, -1, "WMP scene: not yet");
	return NULL;
}
