/* Fuzz target: the WMP codec and scene, one dialect per build
 * (WMP_DIALECT 1 = A, 2 = B, 3 = C): the input follows a prefix that selects
 * the dialect ("// WMP2\n", "// WMP2\nversion 710\n", "WMPB"), so the fuzzer
 * spends its time inside one grammar. Whatever decodes must build a valid
 * scene (or fail with a code), must encode (B from A/B, C from C), and the
 * encoding must be stable: encode(decode(encode(x))) == encode(x).
 * libFuzzer target with GSIO_LIBFUZZER, else a replay program. */
#include "gsio_wmp.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

#ifndef WMP_DIALECT
#define WMP_DIALECT 2
#endif

static const char *prefix(void)
{
	return WMP_DIALECT == 1 ? "// WMP2\n" : WMP_DIALECT == 2 ? "// WMP2\nversion 710\n" : "WMPB";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *pre = prefix();
	size_t pn = strlen(pre);
	uint8_t *in = malloc(pn + size + 1);
	if (!in) return 0;
	memcpy(in, pre, pn);
	if (size) memcpy(in + pn, data, size);
	gsio_opts opts = fuzz_opts();
	gsio_error err;
	gsio_wmp_file *f = gsio_wmp_decode(in, pn + size, "in.wmp", &opts, &err);
	free(in);
	if (!f) {
		fuzz_check_failure(&err);
		return 0;
	}
	gsio_scene *s = gsio_wmp_to_scene(f, NULL, &opts, &err);
	if (!s) fuzz_check_failure(&err);
	if (s && gsio_scene_validate(s, &err)) abort();
	gsio_scene_free(s);
	gsio_wmp_dialect d = f->dialect == GSIO_WMP_BINARY ? GSIO_WMP_BINARY : GSIO_WMP_TEXT_B;
	uint8_t *out = NULL, *out2 = NULL;
	size_t out_size = 0, out2_size = 0;
	if (!gsio_wmp_encode(f, d, &out, &out_size, &err)) {
		gsio_wmp_file *g = gsio_wmp_decode(out, out_size, "re.wmp", &opts, &err);
		if (!g) abort(); // what gsio writes, gsio reads
		if (gsio_wmp_encode(g, d, &out2, &out2_size, &err)) abort();
		if (out2_size != out_size || memcmp(out, out2, out_size)) abort();
		free(out2);
		gsio_wmp_file_free(g);
	} else if (err.code != GSIO_ERR_UNSUPPORTED && err.code != GSIO_ERR_LIMIT) {
		abort();
	}
	free(out);
	gsio_wmp_file_free(f);
	return 0;
}

#include "fuzz_replay.h"
