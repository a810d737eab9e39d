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
#include "gsioi_internal.h"

#include <dirent.h>
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
// Allocation failure: the t_fail_at-th allocation from now on fails (0: none).
static atomic_size_t t_allocs, t_fail_at;

/* Whether this allocation fails; a failing one sets errno as malloc does
 * (glibc's pthread_attr_setaffinity_np returns errno after its calloc
 * fails: a failure without ENOMEM read as success, and it crashed). */
static bool fail_now(void)
{
	size_t at = atomic_load(&t_fail_at);
	bool fail = at && atomic_fetch_add(&t_allocs, 1) + 1 == at;
	if (fail) errno = ENOMEM;
	return fail;
}

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
	return fail_now() ? NULL : counted(__libc_malloc(size));
}

void *calloc(size_t count, size_t size)
{
	return fail_now() ? NULL : counted(__libc_calloc(count, size));
}

void *realloc(void *p, size_t size)
{
	if (size && fail_now()) return NULL;
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
	return fail_now() ? NULL : counted(__libc_memalign(align, size));
}

void *aligned_alloc(size_t align, size_t size)
{
	return fail_now() ? NULL : counted(__libc_memalign(align, size));
}

int posix_memalign(void **out, size_t align, size_t size)
{
	if (fail_now()) return ENOMEM;
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

/** A scene of n small meshes, each on a node of its own (a level's model:
 *  concept_02 has 223 groups). */
static gsio_scene *many_meshes_scene(uint32_t n)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	int32_t root = gsio_scene_add_node(s, "root", -1, &err);
	assert_true(root >= 0);
	for (uint32_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "group%u", i);
		int32_t mi = gsio_scene_add_mesh(s, name, 3, 3, GSIO_MESH_NORMALS, -1, &err);
		if (mi < 0) fail_msg("add_mesh: %s", err.message);
		gsio_mesh *m = &s->meshes[mi];
		for (int v = 0; v < 3; v++) {
			m->positions[3 * v] = (float)i + (float)v;
			m->positions[3 * v + 1] = (float)(v == 1);
			m->positions[3 * v + 2] = 0.5f * (float)v;
			m->normals[3 * v + 2] = 1;
			m->indices[v] = (uint32_t)v;
		}
		gsioi_bbox3(m->positions, 3, m->bbox_min, m->bbox_max);
		int32_t ni = gsio_scene_add_node(s, name, root, &err);
		assert_true(ni >= 0);
		s->nodes[ni].mesh = mi;
		s->nodes[ni].translation[0] = (float)i * 0.125f;
	}
	return s;
}

/** Writes s to test_gltf_heap/name in the build folder with 256 KiB of the
 *  buffer in memory (the rest goes to the file as it is made); returns the
 *  writer's peak heap and sets the GLB's size and the length of its JSON
 *  chunk. */
static size_t write_file_peak(const gsio_scene *s, const char *name, size_t *glb_size, size_t *json)
{
	char dir[4096], path[4200];
	snprintf(dir, sizeof(dir), "%s/test_gltf_heap", GSIO_BINARY_DIR);
	mkdir(dir, 0777);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	size_t base = atomic_load(&t_in_use);
	heap_reset();
	gsio_gltf_opts fo = {0};
	fo.buffer_memory = (size_t)256 << 10;
	gsio_error err;
	if (gsio_gltf_write_file(s, path, &fo, NULL, &err)) fail_msg("write_file: %s", err.message);
	size_t peak = heap_peak_above(base);
	uint8_t *glb = t_read_file(path, glb_size);
	assert_true(*glb_size > 20);
	*json = (size_t)glb[12] | (size_t)glb[13] << 8 | (size_t)glb[14] << 16 | (size_t)glb[15] << 24;
	free(glb);
	unlink(path);
	return peak;
}

/* A GLB's JSON costs about its own text at the peak (the arrays that grow
 * with the scene kept as text and written into the JSON chunk from there,
 * the rest of the document small), not a cJSON tree of every mesh, node,
 * view and accessor: that was five to seven times the text (a level's
 * model of 223 groups: 500 KB of items for 135 KB of JSON), and printing
 * the whole document into one buffer held the text twice (4 000 meshes:
 * 12.4 MB with the tree, 5.0 MB printed whole, 3.4 MB now). */
static void test_many_meshes_json_heap(void **state)
{
	(void)state;
	const uint32_t n = 4000;
	gsio_scene *s = many_meshes_scene(n);
	gsio_error err;
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	size_t size, json;
	size_t peak = write_file_peak(s, "many.glb", &size, &json);
	// The text with its growth room (a half), the in-memory share of the
	// buffer (256 KiB) and the writer's per-mesh tables (a few ints a mesh).
	size_t bound = json + json / 2 + ((size_t)1 << 20);
	print_message("%u meshes: JSON %zu bytes, writer peak heap %zu (bound %zu)\n", n, json, peak, bound);
	assert_true(json > (size_t)n * 400); // the JSON is the bulk of what is held
	assert_true(peak <= bound);
	gsio_scene_free(s);
}

/* A skinned mesh of one weight a vertex (one set of JOINTS_0 / WEIGHTS_0,
 * as MDL7 and HMP-free rigs have): the writer's joint and weight table is
 * the set itself, 20 bytes a vertex (4 joints of 1 byte, 4 floats), not
 * copied again into a set of its own (which held 20 bytes a vertex more:
 * 8 MB of a 400 000-vertex mesh). Written to a file with a 256 KiB share
 * in memory, so what the heap holds is the writer's scratch: the table,
 * positions and normals in glTF axes (24 bytes a vertex) at most. */
static void test_skin_weights_heap(void **state)
{
	(void)state;
	const uint32_t nv = 399999;
	gsio_scene *s = t_large_scene(nv, 0);
	gsio_error err;
	int32_t root = gsio_scene_add_node(s, "root", -1, &err);
	int32_t sk = gsio_scene_add_skin(s, "rig", 2, &err);
	assert_true(root >= 0 && sk >= 0);
	int32_t arm = gsio_scene_add_node(s, "arm", root, &err);
	assert_true(arm >= 0);
	s->skins[sk].joints[0] = root;
	s->skins[sk].joints[1] = arm;
	gsio_mesh *m = &s->meshes[0];
	m->weights.offsets = gsio_scene_alloc(s, nv + 1, sizeof(uint32_t), &err);
	m->weights.joints = gsio_scene_alloc(s, nv, sizeof(uint32_t), &err);
	m->weights.values = gsio_scene_alloc(s, nv, sizeof(float), &err);
	assert_true(m->weights.offsets && m->weights.joints && m->weights.values);
	m->weights.count = nv;
	for (uint32_t v = 0; v < nv; v++) {
		m->weights.offsets[v + 1] = v + 1;
		m->weights.joints[v] = v % 2;
		m->weights.values[v] = 1;
	}
	m->skin = sk;
	if (gsio_scene_validate(s, &err)) fail_msg("invalid scene: %s", err.message);
	size_t size, json;
	size_t peak = write_file_peak(s, "skinned.glb", &size, &json);
	// 24 bytes a vertex: whichever of the table (20) and the axes' scratch
	// (24) is larger, were they alive at once 44; the copy made it 40 or more.
	size_t bound = (size_t)nv * 30 + ((size_t)1 << 20);
	print_message("skinned, %u vertices: GLB %zu bytes, writer peak heap %zu (bound %zu)\n", nv, size, peak,
	              bound);
	assert_true(json < size);
	assert_true(peak <= bound);
	gsio_scene_free(s);
}

/** Files in dir that a failed write must not leave: a .glb, a .gltf (placed
 *  last: never without its resources, which may stay, as
 *  gsioi_place_files() places one file at a time), a temporary; the first
 *  one found into `which`. */
static size_t files_in(const char *dir, char *which, size_t size)
{
	static const char *const parts[] = {".glb", ".gltf", ".tmp"};
	for (int k = 0; k < 3; k++)
		if (t_scan_dir(dir, parts[k], which, size)) return 1;
	return 0;
}

/* Every allocation of a write failing in turn (ufbx's way), in memory and
 * to files, with the images on a helper thread and without: a 600 x 600
 * skin (two bands, gsioi_png_part) and a small mesh, then a 16 x 16 skin
 * (one strip: igzip's stateless call). A write whose failing allocation
 * it cannot do without says why; one it can (the helper thread not
 * started: the caller encodes) succeeds; either way the heap is left as
 * it was found (what the write allocated is freed, the helper's included)
 * and, when it failed, no .glb, .gltf or temporary behind. With two
 * threads the failing allocation is whichever thread's comes n-th. */
static void allocation_failures(gsio_scene *s, const char *what)
{
	// One write with a helper thread first: glibc keeps a finished thread's
	// stack for the next one, with the thread's TLS vector (about 300 bytes
	// of malloc'd memory, the process's for good).
	gsio_gltf_opts warm = {0};
	warm.threads = 2;
	gsio_gltf_output wout;
	gsio_error werr;
	assert_int_equal(gsio_gltf_write(s, &warm, &wout, &werr), 0);
	gsio_gltf_output_free(&wout);
	char dir[4096], path[4200];
	snprintf(dir, sizeof(dir), "%s/test_gltf_heap_fail_%ld", GSIO_BINARY_DIR, (long)getpid());
	mkdir(dir, 0777);
	t_empty_dir(dir);
	for (int way = 0; way < 6; way++) {
		gsio_gltf_opts o = {0};
		o.threads = way % 2 ? 2 : 1;
		bool to_file = way >= 2;
		if (way >= 4) o.flags |= GSIO_GLTF_SEPARATE;
		snprintf(path, sizeof(path), "%s/m.%s", dir, way >= 4 ? "gltf" : "glb");
		size_t total = 0, failed = 0;
		// n = 0: no failure, to count the write's allocations.
		for (size_t n = 0; n == 0 || n <= total + 8; n++) {
			size_t base = atomic_load(&t_in_use);
			gsio_error err;
			gsio_error_clear(&err);
			gsio_gltf_output out;
			atomic_store(&t_allocs, 0);
			atomic_store(&t_fail_at, n ? n : SIZE_MAX);
			int rc = to_file ? gsio_gltf_write_file(s, path, &o, NULL, &err) : gsio_gltf_write(s, &o, &out, &err);
			atomic_store(&t_fail_at, 0);
			if (!n) {
				total = atomic_load(&t_allocs);
				if (rc) fail_msg("way %d: %s", way, err.message);
			}
			if (!rc && !to_file) gsio_gltf_output_free(&out);
			if (!rc && to_file) t_empty_dir(dir);
			if (rc) {
				failed++;
				if (err.code == GSIO_OK || !err.message[0])
					fail_msg("way %d, allocation %zu: failed without a message", way, n);
				char left[8400];
				if (to_file && files_in(dir, left, sizeof(left)))
					fail_msg("way %d, allocation %zu failing (%s: %s): %s left behind", way, n, err.file,
					         err.message, left);
				if (to_file) t_empty_dir(dir);
			}
			if (atomic_load(&t_in_use) != base)
				fail_msg("way %d, allocation %zu failing (%s): %zu bytes left allocated", way, n,
				         rc ? err.message : "written", atomic_load(&t_in_use) - base);
		}
		print_message("%s, %s, %u thread(s): %zu allocations, each failing in turn: %zu failed writes, no leak\n",
		              what, way < 2 ? "GLB in memory" : way < 4 ? "GLB file" : ".gltf files", o.threads, total,
		              failed);
		assert_true(failed >= total / 2);
	}
	t_empty_dir(dir);
	rmdir(dir);
}

static void test_writer_allocation_failures(void **state)
{
	(void)state;
	gsio_scene *s = t_large_scene(3000, 600);
	allocation_failures(s, "600 x 600 skin");
	gsio_scene_free(s);
	s = t_large_scene(300, 16); // a skin of one strip: deflate_band's stateless call
	allocation_failures(s, "16 x 16 skin");
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writer_allocation_failures),
	    cmocka_unit_test(test_writer_peak_heap),
	    cmocka_unit_test(test_many_meshes_json_heap),
	    cmocka_unit_test(test_skin_weights_heap),
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
