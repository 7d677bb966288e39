// SPDX-License-Identifier: MIT
/* RCU for qdisc and hasher pointers: liburcu's bulletproof flavour, which registers reader
 * threads by itself (a library cannot ask every application thread to register). */
/* The small read-side functions inline (liburcu's _LGPL_SOURCE, for LGPL-compatible code); with
 * -ftls-model=initial-exec (meson.build) they reach liburcu's thread-local reader directly. */
#define _LGPL_SOURCE
#include <urcu-bp.h>

#include "base/internal.h"
#include "base/rcu.h"

/* ThreadSanitizer cannot see liburcu's grace period (plain loads of the readers' counters and
 * membarrier): it would report every object freed after one as racing with its last reader.
 * Tell it what RCU guarantees: what a reader did before leaving its section happens before
 * whatever follows a grace period that the section ended in. */
#if defined(__SANITIZE_THREAD__)
#define MQTX_TSAN_RCU 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MQTX_TSAN_RCU 1
#endif
#endif

#ifdef MQTX_TSAN_RCU
#include <sanitizer/tsan_interface.h>
static char grace; /* the object the annotations synchronise on */
#define rcu_tsan_release() __tsan_release(&grace)
#define rcu_tsan_acquire() __tsan_acquire(&grace)
#else
#define rcu_tsan_release() ((void)0)
#define rcu_tsan_acquire() ((void)0)
#endif

void mqtx__rcu_read_lock(void)
{
	urcu_bp_read_lock();
}

void mqtx__rcu_read_unlock(void)
{
	rcu_tsan_release();
	urcu_bp_read_unlock();
}

void mqtx__rcu_synchronize(void)
{
	urcu_bp_synchronize_rcu();
	rcu_tsan_acquire();
}

void mqtx__rcu_retire(void *old)
{
	if (!old)
		return;
	mqtx__rcu_synchronize();
	mqtx__free(old);
}
