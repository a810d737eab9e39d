/* aiScene -> gsio scene: not written yet. */
#include "gsio_assimp_internal.hpp"

extern "C" gsio_scene *gsio_scene_from_aiscene(const aiScene *ai, const gsio_ai_opts *opts, gsio_error *err)
{
	(void)ai;
	(void)opts;
	gsio_error local;
	if (!err) err = &local;
	gsioa::set_error(err, GSIO_ERR_UNSUPPORTED, "gsio_scene_from_aiscene: not yet");
	return nullptr;
}
