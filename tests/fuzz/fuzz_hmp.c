/* Fuzz target: the HMP4/5/7 codec on its own, decode -> encode gives the
 * same bytes and a scene builds (fuzz_codec_roundtrip.h). */
#include "gsio_hmp.h"

#define FUZZ_CODEC hmp
#define FUZZ_FILE_NAME "in.hmp"
#include "fuzz_codec_roundtrip.h"
