/* Fuzz target: the WMB6/WMB7 codec on its own, decode -> encode gives the
 * same bytes, and every scene it builds validates (fuzz_codec_roundtrip.h). */
#include "gsio_wmb.h"

#define FUZZ_CODEC wmb
#define FUZZ_FILE_NAME "in.wmb"
#define FUZZ_VALIDATE_SCENE 1
#include "fuzz_codec_roundtrip.h"
