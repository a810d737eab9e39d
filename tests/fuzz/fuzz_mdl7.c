/* Fuzz target: the MDL7 codec on its own, decode -> encode gives the same
 * bytes and a valid scene builds (fuzz_codec_roundtrip.h). */
#include "gsio_mdl7.h"

#define FUZZ_CODEC mdl7
#define FUZZ_FILE_NAME "in.mdl"
#define FUZZ_VALIDATE_SCENE 1
#include "fuzz_codec_roundtrip.h"
