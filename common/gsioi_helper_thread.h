/* A helper thread started on another CPU than its caller's: the one place
 * that knows how gsio starts a thread it wants running at once. Header-only
 * (static inline, no symbol), so that the glTF writer, built on libgsio's
 * public API only (blender_bridge/gltf_image.c), and mdl2gltf's job pool use the
 * same code. Internal; not installed.
 *
 * Why another CPU: Linux puts a new thread on its parent's CPU first and
 * moves it to an idle one at the next load balance. On the 2-CPU virtual
 * machines this project is measured on, a thread started by a busy caller
 * began 1.5-3.1 ms late in 10 of 15 starts (a program that starts one and
 * stays busy); started with an affinity that leaves out the caller's CPU,
 * 0.10-0.24 ms in 15 of 15. The thread widens its affinity back to the
 * caller's as soon as it runs, so the scheduler may move it later as it
 * likes. Elsewhere than Linux, a plain pthread_create().
 *
 * The caller defines _GNU_SOURCE before its first include (cpu_set_t,
 * sched_getcpu, pthread_attr_setaffinity_np). */
#ifndef GSIOI_HELPER_THREAD_H
#define GSIOI_HELPER_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#if defined(__linux__)
#include <sched.h>
#endif

typedef struct gsio_helper {
	pthread_t thread;
	bool started;
	void *(*fn)(void *);
	void *arg;
#if defined(__linux__)
	cpu_set_t allowed; // the caller's affinity, given back to the thread once it runs
	bool narrowed;
#endif
} gsio_helper;

static inline void *gsioi_helper_main(void *arg)
{
	gsio_helper *h = (gsio_helper *)arg;
#if defined(__linux__)
	if (h->narrowed) (void)pthread_setaffinity_np(pthread_self(), sizeof(h->allowed), &h->allowed);
#endif
	return h->fn(h->arg);
}

/** The CPUs this process may run on (1 where that cannot be told). */
static inline int gsioi_helper_cpus(void)
{
#if defined(__linux__)
	cpu_set_t set;
	if (!sched_getaffinity(0, sizeof(set), &set)) return CPU_COUNT(&set);
#endif
	return 1;
}

/** Starts fn(arg) on a new thread, on another CPU than the caller's when
 *  there is one. h must stay where it is until gsioi_helper_join(). False
 *  when no thread could be started (the caller then does the work). */
static inline bool gsioi_helper_start(gsio_helper *h, void *(*fn)(void *), void *arg)
{
	h->started = false;
	h->fn = fn;
	h->arg = arg;
	pthread_attr_t attr;
	if (pthread_attr_init(&attr)) return false;
#if defined(__linux__)
	h->narrowed = false;
	int me = sched_getcpu();
	if (me >= 0 && me < CPU_SETSIZE && !sched_getaffinity(0, sizeof(h->allowed), &h->allowed) &&
	    CPU_COUNT(&h->allowed) >= 2 && CPU_ISSET(me, &h->allowed)) {
		cpu_set_t others = h->allowed;
		CPU_CLR(me, &others);
		h->narrowed = !pthread_attr_setaffinity_np(&attr, sizeof(others), &others);
	}
#endif
	h->started = !pthread_create(&h->thread, &attr, gsioi_helper_main, h);
	pthread_attr_destroy(&attr);
	return h->started;
}

/** Waits for the thread started by gsioi_helper_start(), if any. */
static inline void gsioi_helper_join(gsio_helper *h)
{
	if (h->started) (void)pthread_join(h->thread, NULL);
	h->started = false;
}

#endif
