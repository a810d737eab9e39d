/* The arena that owns a scene: chunked bump allocation, one free. */
#define _DEFAULT_SOURCE // madvise, MADV_HUGEPAGE
#include "gsioi_huge_pages.h"
#include "gsioi_internal.h"

#include <stdlib.h>

// Under AddressSanitizer every block is fenced: the chunk's free space and a
// 16-byte gap behind each block stay poisoned, so a read or write past the end
// of an array is reported even though blocks share one chunk (fuzzing needs
// this). The gap is not counted against the memory limit.
#if defined(__SANITIZE_ADDRESS__)
#define GSIO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GSIO_ASAN 1
#endif
#endif
#ifdef GSIO_ASAN
#include <sanitizer/asan_interface.h>
#define GSIO_REDZONE 16u
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define GSIO_REDZONE 0u
#endif

typedef struct gsio_chunk {
	struct gsio_chunk *next;
	size_t size; // usable bytes after the header
	size_t used;
	max_align_t align_[]; // the payload starts here, suitably aligned
} gsio_chunk;

typedef struct gsio_kept {
	struct gsio_kept *next;
	void *block; // malloc'd elsewhere, free()d with the arena
} gsio_kept;

struct gsio_arena {
	gsio_allocator allocator;
	size_t limit;
	size_t total;  // bytes obtained from the allocator
	size_t handed; // bytes handed out
	size_t grow;   // size of the next ordinary chunk (doubles up to GSIO_CHUNK_MIN)
	gsio_chunk *head;
	gsio_kept *kept;
	bool refused; // the memory limit has refused a request
	void *appended;        // the array gsioi_arena_append() returned last,
	size_t appended_count; // its elements then (the count it was asked for + 1)
	size_t appended_room;  // and its room
};

// Chunks start small and double: a load makes three or four arenas, and
// with 64 KB each from the start, freeing them put more than malloc's trim
// threshold (128 KB) at the top of the heap, so every small load gave the
// memory back to the kernel and faulted it in again (two thirds of loading
// a 2 KB MD5 file was the kernel's brk and page faults).
#define GSIO_CHUNK_FIRST ((size_t)4 << 10)
#define GSIO_CHUNK_MIN ((size_t)64 << 10)
#define GSIO_ALIGN 16u

static void *raw_alloc(const gsio_allocator *a, size_t size)
{
	return a->alloc ? a->alloc(a->user, size) : malloc(size);
}

static void raw_free(const gsio_allocator *a, void *p)
{
	if (a->free)
		a->free(a->user, p);
	else
		free(p);
}

gsio_arena *gsioi_arena_create(const gsio_allocator *allocator, size_t limit)
{
	gsio_allocator al = {0};
	if (allocator) al = *allocator;
	gsio_arena *a = raw_alloc(&al, sizeof(*a));
	if (!a) return NULL;
	memset(a, 0, sizeof(*a));
	a->allocator = al;
	a->limit = limit ? limit : GSIO_DEFAULT_MEMORY_LIMIT;
	a->grow = GSIO_CHUNK_FIRST;
	return a;
}

void gsioi_arena_destroy(gsio_arena *a)
{
	if (!a) return;
	for (gsio_kept *k = a->kept; k; k = k->next) free(k->block); // the nodes live in chunks
	gsio_chunk *c = a->head;
	while (c) {
		gsio_chunk *next = c->next;
		ASAN_UNPOISON_MEMORY_REGION(c->align_, c->size);
		raw_free(&a->allocator, c);
		c = next;
	}
	gsio_allocator al = a->allocator;
	raw_free(&al, a);
}

bool gsioi_arena_keep(gsio_arena *a, void *block, size_t size, gsio_error *err)
{
	// The block's bytes count toward the limit as the copy they stand for
	// would have: one load allocates no more through kept buffers.
	if (size > a->limit - a->handed || a->handed > a->limit) {
		a->refused = true;
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "a buffer of %zu bytes exceeds the memory limit of %zu bytes",
		          size, a->limit);
		return false;
	}
	gsio_kept *k = gsioi_arena_alloc(a, sizeof(*k), err);
	if (!k) return false;
	a->handed += size;
	k->block = block;
	k->next = a->kept;
	a->kept = k;
	return true;
}

size_t gsioi_arena_used(const gsio_arena *a)
{
	return a ? a->handed : 0;
}

bool gsioi_arena_refused(const gsio_arena *a)
{
	return a && a->refused;
}

/* A chunk from the arena's allocator; with the default one, a chunk of a
 * huge page or more starts on a huge-page boundary, so that gsioi_advise_huge()
 * covers it from its first byte (malloc's own big blocks start 16 bytes
 * into a page, which left up to 2 MiB of a block in 4 KiB pages: a 1024 x
 * 1024 skin decoded to RGBA, 4 MiB, was 512 page faults and a huge page
 * where it is now 2 huge pages). posix_memalign takes the slack from
 * address space, not memory. Best of 50 in-process loads: the synthetic
 * MDL5 of 20 000 vertices x 31 frames 5.6 -> 2.1-2.5 ms (1.35 -> 3.0-3.6
 * GB/s), the 1025 x 1025 HMP5 12.4 -> 5.9 ms. arena_take() asks for 2 MiB
 * pages before the chunk's first write: a block of 80 MB (500 MDL frames)
 * is then faulted in 40 times instead of 20 000 (that load 57 -> 23 ms;
 * the 1025x1025 HMP5 terrain 31 -> 18 ms). Not for a caller's allocator,
 * whose memory is its own business. */
static void *chunk_alloc(const gsio_allocator *a, size_t size)
{
	if (a->alloc || size < GSIO_HUGE_PAGE) return raw_alloc(a, size);
#ifdef _WIN32
	return raw_alloc(a, size); // no posix_memalign; free() must take it back
#else
	void *p;
	return posix_memalign(&p, GSIO_HUGE_PAGE, size) ? NULL : p;
#endif
}

static void *arena_take(gsio_arena *a, size_t size, gsio_error *err)
{
	size_t need = (size + (GSIO_ALIGN - 1)) & ~(size_t)(GSIO_ALIGN - 1);
	size_t take = need + GSIO_REDZONE;
	if (need < size || take < need || need > a->limit - a->handed || a->handed > a->limit) {
		a->refused = true;
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1,
		          "allocation of %zu bytes exceeds the memory limit of %zu bytes", size,
		          a->limit);
		return NULL;
	}
	gsio_chunk *c = a->head;
	// The head's free space, else that of one of the 3 chunks behind it (a
	// block that did not fit the head started a new one and left the rest
	// of the old head unused).
	gsio_chunk *o = c ? c->next : NULL;
	for (int k = 0; c && c->size - c->used < take && o && k < 3; o = o->next, k++)
		if (o->size - o->used >= take) c = o;
	if (!c || c->size - c->used < take) {
		c = a->head;
		bool own = take > a->grow / 2; // a big block gets a chunk of its own size
		size_t chunk = own ? take : a->grow;
		size_t total;
		if (!gsioi_add_size(chunk, sizeof(gsio_chunk), &total)) {
			GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "allocation size overflows");
			return NULL;
		}
		gsio_chunk *n = chunk_alloc(&a->allocator, total);
		if (!n) {
			GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory allocating %zu bytes",
			          total);
			return NULL;
		}
		// Advice before the first write: a page the header touched first
		// would leave its 2 MiB in 4 KiB pages.
		if (!a->allocator.alloc) gsioi_advise_huge(n, total);
		n->size = chunk;
		n->used = 0;
		ASAN_POISON_MEMORY_REGION(n->align_, chunk);
		if (!own && a->grow < GSIO_CHUNK_MIN) a->grow *= 2;
		if (c && own) {
			// A big block goes behind the current chunk so its free space stays usable.
			n->next = c->next;
			c->next = n;
		} else {
			n->next = c;
			a->head = n;
		}
		a->total += total;
		c = n;
	}
	uint8_t *p = (uint8_t *)c->align_ + c->used;
	c->used += take;
	a->handed += need;
	ASAN_UNPOISON_MEMORY_REGION(p, size);
	return p;
}

void *gsioi_arena_alloc(gsio_arena *a, size_t size, gsio_error *err)
{
	void *p = arena_take(a, size, err);
	if (p) memset(p, 0, size);
	return p;
}

void *gsioi_arena_alloc_uninit(gsio_arena *a, size_t size, gsio_error *err)
{
	return arena_take(a, size, err);
}

void *gsioi_arena_array(gsio_arena *a, size_t count, size_t size, gsio_error *err)
{
	size_t total;
	if (!gsioi_mul_size(count, size, &total)) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "array of %zu x %zu bytes overflows", count,
		          size);
		return NULL;
	}
	return gsioi_arena_alloc(a, total, err);
}

void *gsioi_arena_array_uninit(gsio_arena *a, size_t count, size_t size, gsio_error *err)
{
	size_t total;
	if (!gsioi_mul_size(count, size, &total)) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "array of %zu x %zu bytes overflows", count,
		          size);
		return NULL;
	}
	return arena_take(a, total, err);
}

void *gsioi_arena_regrow(gsio_arena *a, const void *old, size_t count, size_t n, size_t size, gsio_error *err)
{
	void *p = gsioi_arena_array_uninit(a, n, size, err);
	if (p && count) memcpy(p, old, count * size); // count <= n: count * size did not overflow
	return p;
}

void *gsioi_arena_append(gsio_arena *a, void *items, size_t count, size_t size, gsio_error *err)
{
	if (items && items == a->appended && count == a->appended_count && count < a->appended_room) {
		a->appended_count = count + 1;
		return items;
	}
	size_t room = count < 2 ? 4 : count * 2;
	if (room < count) room = count + 1; // count * 2 overflowed: the array call refuses it
	void *p = gsioi_arena_regrow(a, items, count, room, size, err);
	if (!p) return NULL;
	a->appended = p;
	a->appended_count = count + 1;
	a->appended_room = room;
	return p;
}

char *gsioi_arena_strndup(gsio_arena *a, const char *s, size_t n, gsio_error *err)
{
	size_t len = 0;
	while (len < n && s[len]) len++;
	char *d = gsioi_arena_alloc(a, len + 1, err);
	if (!d) return NULL;
	memcpy(d, s, len);
	d[len] = 0;
	return d;
}

char *gsioi_arena_strdup(gsio_arena *a, const char *s, gsio_error *err)
{
	return gsioi_arena_strndup(a, s, strlen(s), err);
}

gsio_arena *gsioi_arena_for(const gsio_opts *opts, const char *name, gsio_error *err)
{
	gsio_arena *a = gsioi_arena_create(opts ? opts->allocator : NULL, opts ? opts->memory_limit : 0);
	if (!a) GSIO_FAIL(err, GSIO_ERR_NOMEM, name, -1, "out of memory");
	return a;
}

gsio_arena *gsioi_arena_like(const gsio_arena *like, const char *name, gsio_error *err)
{
	gsio_arena *a = gsioi_arena_create(&like->allocator, like->limit);
	if (!a) GSIO_FAIL(err, GSIO_ERR_NOMEM, name, -1, "out of memory");
	return a;
}

void *gsioi_codec_begin(const uint8_t *data, size_t size, const char *name, const gsio_opts *opts,
                       bool borrow, size_t struct_size, gsio_arena **arena, const uint8_t **bytes,
                       gsio_error *err)
{
	*arena = NULL;
	*bytes = NULL;
	gsio_error_clear(err);
	if (!data && size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, name, -1, "no data");
		return NULL;
	}
	gsio_arena *a = gsioi_arena_for(opts, name, err);
	if (!a) return NULL;
	void *f = gsioi_arena_alloc(a, struct_size, err);
	static const uint8_t empty[1];
	const uint8_t *in = data ? data : empty; // NULL with size 0 is an empty file
	if (f && !borrow) {
		// The bytes are copied once so the decoded file owns what it points to.
		uint8_t *c = gsioi_arena_alloc_uninit(a, size, err);
		if (c && size) memcpy(c, data, size);
		in = c;
	}
	if (!f || !in) {
		gsioi_arena_destroy(a);
		return NULL;
	}
	*arena = a;
	*bytes = in;
	return f;
}
