/* Fuzz target: any bytes through the importer registry, as every format.
 * Built with -fsanitize=fuzzer it is a libFuzzer target; built without, it
 * is a replay program: `fuzz_load FILE...` runs each file (crashers found by
 * fuzzing become regression inputs this way). */
#include "gsio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// The first byte picks the name the input claims, so detection by
	// extension is fuzzed too; the rest is the file.
	static const char *const names[] = {"in.mdl", "in.hmp", "in.md5mesh", "in.md5anim",
	                                    "in.md5camera", "in.wmp", "in", "in.bin"};
	if (size < 1) return 0;
	const char *name = names[data[0] & 7];
	gsio_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.memory_limit = (size_t)256 << 20;
	// A fake io that has no sibling files keeps the fuzzer off the file system.
	gsio_error err;
	gsio_scene *s = gsio_load_memory(data + 1, size - 1, name, &opts, &err);
	if (s) {
		// Touch what a writer would read, so bad pointers show up here.
		volatile float sum = 0;
		for (size_t m = 0; m < s->meshes_count; m++) {
			const gsio_mesh *me = &s->meshes[m];
			for (size_t i = 0; i < me->index_count; i++)
				if (me->indices[i] >= me->vertex_count) abort();
			for (size_t i = 0; i < me->vertex_count * 3; i++) sum += me->positions[i];
		}
		gsio_scene_free(s);
	} else if (err.code == GSIO_OK) {
		abort(); // a failure must always say why
	}
	return 0;
}

#ifndef GSIO_LIBFUZZER
int main(int argc, char **argv)
{
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		uint8_t *data;
		size_t size;
		gsio_error err;
		if (gsio_read_whole_file(argv[i], &data, &size, 0, &err)) {
			fprintf(stderr, "fuzz_load: %s: %s\n", argv[i], err.message);
			failed = 1;
			continue;
		}
		LLVMFuzzerTestOneInput(data, size);
		free(data);
	}
	return failed;
}
#endif
