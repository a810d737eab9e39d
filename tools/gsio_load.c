/* Loading an input for the gsio command: gsio's importers, then (through
 * the Assimp hook below) the Assimp adapter for what they do not claim.
 *
 * ASSIMP HOOK: when CMake finds the adapter's target (gsio::assimp, built
 * from assimp_patch/), it defines GSIO_HAVE_ASSIMP_ADAPTER and links it;
 * then a file with an extension Assimp reads and gsio does not goes through
 * gsio_ai_import_file() and gsio_scene_from_aiscene(). Without the adapter
 * such a file fails with a "needs the Assimp adapter" error. */
#include "gsio_cli.h"
#include "gsio_inputs.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#ifdef GSIO_HAVE_ASSIMP_ADAPTER
#include "gsio_assimp.h"

#include <assimp/postprocess.h>
#endif

bool gsio_cli_have_assimp(void)
{
#ifdef GSIO_HAVE_ASSIMP_ADAPTER
	return true;
#else
	return false;
#endif
}

// Whether no gsio importer claims the file (by its first bytes or by its
// extension) but Assimp's extensions include it.
static bool for_assimp(const char *path)
{
	return !gsio_known_extension(path, false) && gsio_known_extension(path, true);
}

gsio_scene *gsio_cli_load(const char *path, const gsio_opts *opts, gsio_error *err)
{
	gsio_scene *s = gsio_load_file(path, opts, err);
	if (s || err->code != GSIO_ERR_BAD_MAGIC || !for_assimp(path)) return s;
#ifdef GSIO_HAVE_ASSIMP_ADAPTER
	const struct aiScene *ai = gsio_ai_import_file(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices);
	if (!ai) {
		gsio_error_clear(err);
		err->code = GSIO_ERR_UNSUPPORTED;
		snprintf(err->file, sizeof(err->file), "%s", path);
		snprintf(err->message, sizeof(err->message), "Assimp cannot read it: %s",
		         gsio_ai_get_error_string());
		return NULL;
	}
	gsio_ai_opts ao;
	memset(&ao, 0, sizeof(ao));
	if (opts) ao.base = *opts;
	// A GLB gsio (or Blender) wrote comes back in gsio's axes, not turned.
	const char *dot = strrchr(path, '.');
	ao.gltf_axes = dot && (!strcasecmp(dot, ".glb") || !strcasecmp(dot, ".gltf"));
	gsio_error_clear(err);
	s = gsio_scene_from_aiscene(ai, &ao, err);
	gsio_ai_release_import(ai);
	if (!s && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", path);
	return s;
#else
	gsio_error_clear(err);
	err->code = GSIO_ERR_UNSUPPORTED;
	snprintf(err->file, sizeof(err->file), "%s", path);
	snprintf(err->message, sizeof(err->message),
	         "gsio does not read this format; reading it needs the Assimp adapter, which "
	         "this gsio was built without (assimp_patch/, -DGSIO_WITH_ASSIMP=ON)");
	return NULL;
#endif
}
