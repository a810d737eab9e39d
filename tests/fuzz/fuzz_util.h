/* What the fuzz targets share: the options they decode with and the promise
 * every failure keeps. Include it after gsio.h (or a codec's header). */
#ifndef GSIO_FUZZ_UTIL_H
#define GSIO_FUZZ_UTIL_H

#include <stdlib.h>
#include <string.h>

/* The memory limit of every decode and write: a fuzzed size claim fails
 * with a code instead of exhausting the machine. */
#define FUZZ_MEMORY_LIMIT ((size_t)256 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The load options of the targets: the defaults and FUZZ_MEMORY_LIMIT. */
static inline gsio_opts fuzz_opts(void)
{
	gsio_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.memory_limit = FUZZ_MEMORY_LIMIT;
	return opts;
}

/* A failure always says why: a code and a message, or the target aborts. */
static inline void fuzz_check_failure(const gsio_error *err)
{
	if (err->code == GSIO_OK || !err->message[0]) abort();
}

#endif
