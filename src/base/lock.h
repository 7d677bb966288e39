/* SPDX-License-Identifier: MIT */
/* The lock every sender can wait on: a compare-and-swap lock whose waiters poll politely, then
 * park on a futex that unlock wakes, with fairness after a bounded time of barging. */
#ifndef MQTX_LOCK_H
#define MQTX_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The lock word:
 * - MQTX_LOCK_HELD: owned;
 * - MQTX_LOCK_WOKEN: a parked waiter was woken and has not yet taken the lock or gone back to
 *   sleep: unlock wakes nobody more until it has (one wake-up system call per waiter's round
 *   trip, not one per unlock);
 * - MQTX_LOCK_HANDOFF: the owner passed the lock to a parked waiter without releasing it
 *   (HELD stays set, so nobody can barge in): set only while the lock is on its way;
 * - bits 3 to 7: waiters polling before they park (at most 31 are counted);
 * - bits 8 and up: waiters parked, or woken and polling again.
 * The word is 0 when nobody waits: an uncontended lock and unlock are one compare-and-swap
 * each, and only then. The slow paths are in base/lock.c, with the reasons for each choice.
 */
#define MQTX_LOCK_HELD	  0x1u
#define MQTX_LOCK_WOKEN	  0x2u
#define MQTX_LOCK_HANDOFF 0x4u
#define MQTX_LOCK_POLLER  0x8u	 /* one polling waiter */
#define MQTX_LOCK_POLLERS 0xf8u	 /* their count */
#define MQTX_LOCK_PARKED  0x100u /* one parked waiter */

struct mqtx_spinlock {
	atomic_uint v;
	atomic_uint
		seq; /* bumped by every unlock that wakes a waiter: what parked waiters sleep on */
	/* Bumped by every acquisition made while the word was not 0 (someone waits): a waiter that
	 * saw the lock free looks again a moment later and takes it only if this did not move,
	 * that is, if the owner is not between two packets. */
	atomic_uint gen;
	/* Written and read by the owner only (in the slow unlock): slow unlocks left before the
	 * clock is read again, and when the lock must next go to a parked waiter rather than to
	 * whoever barges in first. */
	uint32_t fair_left;
	/* Waiters are polite (see base/lock.c): for a lock whose owner and waiters want the same
	 * thing done, a TX queue's lock, where the owner's next packet is as good as the waiter's.
	 * Not for a lock around a shared resource that every thread needs for its own progress (a
	 * pool's free stack), where a polite waiter would wait for the fairness hand-off. */
	bool polite;
	uint64_t fair_at;
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
	atomic_init(&l->seq, 0);
	atomic_init(&l->gen, 0);
	l->fair_left = 0;
	l->polite = false;
	l->fair_at = 0;
}

/* The same, for a lock whose waiters are polite (see @polite). */
static inline void mqtx_spin_init_polite(struct mqtx_spinlock *l)
{
	mqtx_spin_init(l);
	l->polite = true;
}

/* The owner's mark of an acquisition that waiters may be watching (see @gen). */
static inline void mqtx__spin_bump(struct mqtx_spinlock *l)
{
	atomic_store_explicit(&l->gen, atomic_load_explicit(&l->gen, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

void mqtx__spin_wait(struct mqtx_spinlock *l);
void mqtx__spin_release(struct mqtx_spinlock *l, unsigned v);

/* Take @l if it is free now; never waits. One locked bit-test-and-set: it takes a free lock
 * whatever else the word holds (waiters barged past, which is what a busy owner does). */
static inline bool mqtx_spin_trylock(struct mqtx_spinlock *l)
{
	if (atomic_fetch_or_explicit(&l->v, MQTX_LOCK_HELD, memory_order_acquire) & MQTX_LOCK_HELD)
		return false;
	if (__builtin_expect(atomic_load_explicit(&l->v, memory_order_relaxed) != MQTX_LOCK_HELD,
			     0))
		mqtx__spin_bump(l); /* someone waits: mark the acquisition */
	return true;
}

static inline void mqtx_spin_lock(struct mqtx_spinlock *l)
{
	if (__builtin_expect(!mqtx_spin_trylock(l), 0))
		mqtx__spin_wait(l);
}

static inline void mqtx_spin_unlock(struct mqtx_spinlock *l)
{
	unsigned v = atomic_load_explicit(&l->v, memory_order_relaxed);

	/* Anything besides HELD in the word means waiters: the slow path. */
	if (__builtin_expect(v != MQTX_LOCK_HELD || !atomic_compare_exchange_strong_explicit(
							    &l->v, &v, 0, memory_order_release,
							    memory_order_relaxed),
			     0))
		mqtx__spin_release(l, v);
}

/*
 * A lock whose unlock is one plain store, for a lock that senders do not queue on: a TX
 * queue's xmit lock, taken inside the queue lock by a direct transmit or by the one runner of a
 * qdisc, so that at most one sender (and a configuration change) ever waits for it; noqueue
 * senders queue on the queue's busylock first (core/xmit.c). A waiter polls with backoff and,
 * once the owner has evidently lost its CPU, yields its own between looks, so an owner that
 * shares its core gets it back.
 */
struct mqtx_rawlock {
	atomic_uint v;
};

static inline void mqtx_raw_init(struct mqtx_rawlock *l)
{
	atomic_init(&l->v, 0);
}

static inline bool mqtx_raw_trylock(struct mqtx_rawlock *l)
{
	return !atomic_load_explicit(&l->v, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&l->v, 1, memory_order_acquire);
}

void mqtx__raw_wait(struct mqtx_rawlock *l);

static inline void mqtx_raw_lock(struct mqtx_rawlock *l)
{
	if (__builtin_expect(atomic_exchange_explicit(&l->v, 1, memory_order_acquire), 0))
		mqtx__raw_wait(l);
}

/* Someone holds @l now (a hint: it may be let go the next moment). */
static inline bool mqtx_raw_is_locked(struct mqtx_rawlock *l)
{
	return atomic_load_explicit(&l->v, memory_order_relaxed);
}

static inline void mqtx_raw_unlock(struct mqtx_rawlock *l)
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
