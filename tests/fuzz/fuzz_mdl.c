/* Fuzz target: the MDL3/4/5 codec on its own, decode -> encode gives the
 * same bytes and a scene builds (fuzz_codec_roundtrip.h). */
#include "gsio_mdl.h"

#define FUZZ_CODEC mdl
#define FUZZ_FILE_NAME "in.mdl"
#include "fuzz_codec_roundtrip.h"
