// SPDX-License-Identifier: MIT
/* The slow paths of the locks: poll with backoff, park on the futex, wake one, hand off. */
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"

/*
 * How long a waiter polls before it parks, in pause instructions (about a microsecond on
 * current x86 cores), and the longest gap between two looks. Short on purpose: an owner that
 * sends packet after packet frees the lock between them, and a waiter still polling then takes
 * it and moves the lock, qdisc and queue lines to its core, on every packet if it can (measured
 * with two senders on one queue: a budget of 256 pauses gave 0.4-0.6 of one sender's rate, 16
 * to 64 gave 0.7-1.1). Parked, it costs the owner one wake-up per round trip and nothing else;
 * fairness comes from the hand-off below. Backoff: every look at the word takes its cache line
 * from the owner, who writes it on every unlock.
 */
#define SPIN_BUDGET  32
#define SPIN_GAP_MAX 32

/* After this much time of barging (a woken waiter finding the lock taken again), the owner
 * hands the lock to a parked waiter: the eventual fairness of WebKit's WTF::Lock and Rust's
 * parking_lot, which bound a waiter's starvation without paying a hand-off on every unlock. */
#define FAIR_NS 500000ull

static void futex_wait(atomic_uint *w, unsigned v)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake_one(atomic_uint *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline bool cas(atomic_uint *w, unsigned *v, unsigned nv)
{
	return atomic_compare_exchange_weak_explicit(w, v, nv, memory_order_acquire,
						     memory_order_relaxed);
}

/*
 * Poll until the lock is free and take it, or until the budget is spent. @parked: the caller
 * is counted in the word as a parked waiter (it was woken): taking the lock uncounts it, and
 * a hand-off meant for a parked waiter may be taken. Returns true with the lock held.
 */
static bool poll_lock(struct mqtx_spinlock *l, bool parked)
{
	unsigned spent = 0, gap = 1;
	unsigned v = atomic_load_explicit(&l->v, memory_order_relaxed);

	for (;;) {
		if (parked && (v & MQTX_LOCK_HANDOFF)) {
			/* Passed to us: HELD stays set. */
			if (cas(&l->v, &v,
				(v & ~(MQTX_LOCK_HANDOFF | MQTX_LOCK_WOKEN)) - MQTX_LOCK_PARKED))
				return true;
			continue;
		}
		if (!(v & MQTX_LOCK_HELD)) {
			unsigned nv = v | MQTX_LOCK_HELD;

			if (parked)
				nv = (nv & ~MQTX_LOCK_WOKEN) - MQTX_LOCK_PARKED;
			if (cas(&l->v, &v, nv))
				return true;
			continue;
		}
		if (spent >= SPIN_BUDGET)
			return false;
		for (unsigned i = 0; i < gap; i++)
			mqtx_cpu_relax();
		spent += gap;
		gap = gap < SPIN_GAP_MAX ? gap * 2 : gap;
		v = atomic_load_explicit(&l->v, memory_order_relaxed);
	}
}

/*
 * The lock was held at the first try. Poll, then park: count ourselves in the word and sleep
 * on it. Any change of the word before the sleep starts (an unlock, another waiter) makes the
 * sleep return at once, so a wake-up cannot be missed; unlock wakes one parked waiter when
 * there is one and none is already on its way (WOKEN). A woken waiter polls again and, if it
 * loses to a thread that barged in, clears WOKEN and parks again: the next unlock wakes one.
 */
void mqtx__spin_wait(struct mqtx_spinlock *l)
{
	unsigned v;

	if (poll_lock(l, false))
		return;
	v = atomic_load_explicit(&l->v, memory_order_relaxed);
	for (;;) {
		if (!(v & MQTX_LOCK_HELD)) {
			if (cas(&l->v, &v, v | MQTX_LOCK_HELD))
				return;
			continue;
		}
		if (cas(&l->v, &v, v + MQTX_LOCK_PARKED))
			break;
	}
	v += MQTX_LOCK_PARKED;
	for (;;) {
		futex_wait(&l->v, v);
		for (;;) {
			if (poll_lock(l, true))
				return;
			/* Still held by another. Clear WOKEN before sleeping again, or no unlock
			 * would wake anyone: we may have been the one on its way. */
			v = atomic_load_explicit(&l->v, memory_order_relaxed);
			if (v & MQTX_LOCK_HANDOFF || !(v & MQTX_LOCK_HELD))
				continue;
			if (v & MQTX_LOCK_WOKEN) {
				if (!cas(&l->v, &v, v & ~MQTX_LOCK_WOKEN))
					continue;
				v &= ~MQTX_LOCK_WOKEN;
			}
			break;
		}
	}
}

/*
 * Unlock with parked waiters (the word is not just HELD). Wake one unless a woken one is on
 * its way. When the fairness deadline has passed, hand the lock over instead of releasing it:
 * the woken waiter owns it the moment it runs, and no barging thread can take it first.
 */
void mqtx__spin_release(struct mqtx_spinlock *l)
{
	unsigned v = atomic_load_explicit(&l->v, memory_order_relaxed);
	int fair = -1; /* not decided yet: the clock is read once, and only to wake */

	for (;;) {
		unsigned nv;

		if (v < MQTX_LOCK_PARKED || (v & MQTX_LOCK_WOKEN)) {
			if (atomic_compare_exchange_weak_explicit(&l->v, &v, v & ~MQTX_LOCK_HELD,
								  memory_order_release,
								  memory_order_relaxed))
				return;
			continue;
		}
		if (fair < 0) {
			uint64_t now = now_ns();

			fair = l->fair_at && now >= l->fair_at;
			if (fair || !l->fair_at)
				l->fair_at = now + FAIR_NS;
		}
		nv = fair ? v | MQTX_LOCK_HANDOFF | MQTX_LOCK_WOKEN
			  : (v & ~MQTX_LOCK_HELD) | MQTX_LOCK_WOKEN;
		if (atomic_compare_exchange_weak_explicit(&l->v, &v, nv, memory_order_release,
							  memory_order_relaxed)) {
			futex_wake_one(&l->v);
			return;
		}
	}
}

/* The raw lock's wait: the same polling, then a yield between looks (see lock.h for why this
 * lock does not park). */
void mqtx__raw_wait(struct mqtx_rawlock *l)
{
	unsigned spent = 0, gap = 1;

	do {
		while (atomic_load_explicit(&l->v, memory_order_relaxed)) {
			if (spent >= SPIN_BUDGET) {
				sched_yield();
				continue;
			}
			for (unsigned i = 0; i < gap; i++)
				mqtx_cpu_relax();
			spent += gap;
			gap = gap < SPIN_GAP_MAX ? gap * 2 : gap;
		}
	} while (atomic_exchange_explicit(&l->v, 1, memory_order_acquire));
}
