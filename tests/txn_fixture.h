/* SPDX-License-Identifier: MIT */
/* Fault injection for the transaction tests: fail the k-th allocation of one thread, and count
 * the blocks alive (every thread) so that a test can prove a failure leaked nothing. */
#ifndef MQTX_TEST_TXN_FIXTURE_H
#define MQTX_TEST_TXN_FIXTURE_H

#include <pthread.h>
#include <stdatomic.h>

#include <mqtx/common.h>

static struct {
	pthread_t thread;
	atomic_bool armed;
	long countdown; /* allocations left before the failing one (armed thread only) */
	long failed;
	atomic_long live; /* blocks allocated and not yet freed, through this hook */
} fi;

static void *fi_alloc(size_t size, size_t align, void *arg)
{
	void *p;

	if (atomic_load(&fi.armed) && pthread_equal(pthread_self(), fi.thread) &&
	    --fi.countdown == 0) {
		fi.failed++;
		return NULL;
	}
	p = mqtx_default_alloc(size, align, arg);
	if (p)
		atomic_fetch_add(&fi.live, 1);
	return p;
}

static void fi_free(void *ptr, void *arg)
{
	atomic_fetch_sub(&fi.live, 1);
	mqtx_default_free(ptr, arg);
}

static const struct mqtx_allocator fi_allocator = { fi_alloc, fi_free, NULL };

/* Fail the @k-th allocation (1-based) made by the calling thread from now on. */
static inline void fi_arm(long k)
{
	fi.thread = pthread_self();
	fi.countdown = k;
	fi.failed = 0;
	atomic_store(&fi.armed, true);
}

/* Disarm; returns whether the failure was injected. */
static inline bool fi_disarm(void)
{
	atomic_store(&fi.armed, false);
	return fi.failed != 0;
}

/* Blocks alive through the hook: exact when it was installed before any object was made. */
static inline long fi_live(void)
{
	return atomic_load(&fi.live);
}

#endif
