/* SPDX-License-Identifier: MIT */
/* A small test-and-test-and-set spinlock whose waiters spin briefly, then sleep in futex naps. */
#ifndef MQTX_LOCK_H
#define MQTX_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>

/* Queue locks are held for a handful of list operations only; a futex-based mutex costs an
 * extra atomic (and often a system call) on unlock. Here unlock stays one store, and a waiter
 * that cannot get the lock by spinning naps (src/base/lock.c), so a preempted holder gets the
 * CPU back on an oversubscribed or busy machine. */
struct mqtx_spinlock {
	atomic_int v;
};

static inline void mqtx_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

static inline void mqtx_spin_init(struct mqtx_spinlock *l)
{
	atomic_init(&l->v, 0);
}

static inline bool mqtx_spin_trylock(struct mqtx_spinlock *l)
{
	return !atomic_load_explicit(&l->v, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&l->v, 1, memory_order_acquire);
}

void mqtx__spin_wait(struct mqtx_spinlock *l);

static inline void mqtx_spin_lock(struct mqtx_spinlock *l)
{
	if (__builtin_expect(atomic_exchange_explicit(&l->v, 1, memory_order_acquire), 0))
		mqtx__spin_wait(l);
}

static inline void mqtx_spin_unlock(struct mqtx_spinlock *l)
{
	atomic_store_explicit(&l->v, 0, memory_order_release);
}

/* Counters with a single writer: a relaxed load and store (a plain add on x86) that readers
 * on other threads may sample without a data race. */
#define MQTX_CNT_ADD(c, n)                                                                  \
	atomic_store_explicit(&(c), atomic_load_explicit(&(c), memory_order_relaxed) + (n), \
			      memory_order_relaxed)
#define MQTX_CNT_READ(c) atomic_load_explicit(&(c), memory_order_relaxed)
/* Counters with several writers. */
#define MQTX_CNT_INC_SHARED(c, n) atomic_fetch_add_explicit(&(c), (n), memory_order_relaxed)

#endif
