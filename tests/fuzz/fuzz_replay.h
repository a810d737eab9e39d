/* The replay main() shared by the per-format fuzz targets: built without
 * libFuzzer, `fuzz_X_replay FILE...` runs each file through
 * LLVMFuzzerTestOneInput, so an input the fuzzer found replays as a test.
 * A broken promise aborts (the test fails); the exit status is non-zero only
 * when a file cannot be read. Include it last, once. */
#ifndef GSIO_FUZZ_REPLAY_H
#define GSIO_FUZZ_REPLAY_H

#ifndef GSIO_LIBFUZZER
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		uint8_t *data;
		size_t size;
		gsio_error err;
		if (gsio_read_whole_file(argv[i], &data, &size, 0, &err)) {
			fprintf(stderr, "%s: %s: %s\n", argv[0], argv[i], err.message);
			failed = 1;
			continue;
		}
		LLVMFuzzerTestOneInput(data, size);
		free(data);
	}
	printf("%s: %d files replayed\n", argv[0], argc - 1);
	return failed;
}
#endif

#endif
