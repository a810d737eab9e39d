/* The glTF writer's own peak heap when writing to a file with a small
 * in-memory share (gsio_gltf_opts.buffer_memory, 256 KiB here): the binary
 * data goes to disk as it is made, so the writer holds its per-mesh scratch
 * arrays, the JSON and at most that share of buffer, never the output. (By
 * default a GLB holds up to 32 MiB of its binary chunk in a mapping of its
 * own, not malloc's: this counter would not see it, so the test sets the
 * share.) gsio_gltf_opts has no allocator hooks (the writer mallocs, and so
 * do cJSON and ISA-L), so this program counts every allocation of the
 * process by replacing malloc and friends (glibc's __libc_* underneath).
 * Under AddressSanitizer, which owns malloc, it is skipped. */
#define _GNU_SOURCE
#include "test_util.h"

#include "gsio_gltf.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef T_SANITIZED
// -- Counting allocator

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void __libc_free(void *p);

static atomic_size_t t_in_use, t_peak;

static void *counted(void *p)
{
	if (p) {
		size_t now = atomic_fetch_add(&t_in_use, malloc_usable_size(p)) + malloc_usable_size(p);
		size_t peak = atomic_load(&t_peak);
		while (now > peak && !atomic_compare_exchange_weak(&t_peak, &peak, now)) {
		}
	}
	return p;
}

static void uncount(void *p)
{
	if (p) atomic_fetch_sub(&t_in_use, malloc_usable_size(p));
}

void *malloc(size_t size)
{
	return counted(__libc_malloc(size));
}

void *calloc(size_t count, size_t size)
{
	return counted(__libc_calloc(count, size));
}

void *realloc(void *p, size_t size)
{
	size_t old = p ? malloc_usable_size(p) : 0;
	void *q = __libc_realloc(p, size);
	if (q || !size) {
		atomic_fetch_sub(&t_in_use, old);
		counted(q);
	}
	return q;
}

void free(void *p)
{
	uncount(p);
	__libc_free(p);
}

void *memalign(size_t align, size_t size)
{
	return counted(__libc_memalign(align, size));
}

void *aligned_alloc(size_t align, size_t size)
{
	return counted(__libc_memalign(align, size));
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p = __libc_memalign(align, size);
	if (!p) return ENOMEM;
	*out = counted(p);
	return 0;
}

/** Peak bytes in use above the level at the start. */
static void heap_reset(void)
{
	atomic_store(&t_peak, atomic_load(&t_in_use));
}

static size_t heap_peak_above(size_t base)
{
	size_t p = atomic_load(&t_peak);
	return p > base ? p - base : 0;
}

// -- Test

static void test_writer_peak_heap(void **state)
{
	(void)state;
	const uint32_t nv = 399999; // a multiple of 3: one index a vertex
	gsio_scene *s = t_large_scene(nv, 0);
	gsio_error err;

	size_t base = atomic_load(&t_in_use);
	heap_reset();
	gsio_gltf_output out;
	gsio_gltf_opts o = {0};
	o.name = "big"; // the stem gsio_gltf_write_file takes from big.glb
	assert_int_equal(gsio_gltf_write(s, &o, &out, &err), 0);
	size_t out_size = out.files[0].size;
	size_t mem_peak = heap_peak_above(base);
	gsio_gltf_output_free(&out);

	char dir[4096], path[4200];
	snprintf(dir, sizeof(dir), "%s/test_gltf_heap", GSIO_BINARY_DIR);
	mkdir(dir, 0777);
	snprintf(path, sizeof(path), "%s/big.glb", dir);
	base = atomic_load(&t_in_use);
	heap_reset();
	gsio_gltf_opts fo = {0};
	fo.buffer_memory = (size_t)256 << 10;
	if (gsio_gltf_write_file(s, path, &fo, NULL, &err)) fail_msg("write_file: %s", err.message);
	size_t file_peak = heap_peak_above(base);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, out_size);
	unlink(path);

	// The writer's scratch: positions and normals converted to glTF axes
	// (12 bytes a vertex each, both alive while a mesh is written); the
	// in-memory share (256 KiB) and the JSON fit in the 1 MiB.
	size_t bound = (size_t)nv * 24 + ((size_t)1 << 20);
	print_message("GLB %zu bytes: writer peak heap %zu bytes in memory, %zu writing the file "
	              "(bound %zu)\n",
	              out_size, mem_peak, file_peak, bound);
	assert_true(mem_peak >= out_size); // the counter sees the in-memory output
	assert_true(file_peak <= bound);
	assert_true(file_peak + out_size / 2 <= mem_peak); // the buffer is not held
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writer_peak_heap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	printf("SKIPPED: test_gltf_heap counts allocations by replacing malloc, which AddressSanitizer owns\n");
	return 77;
}
#endif
