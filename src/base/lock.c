// SPDX-License-Identifier: MIT
/* The slow paths of the locks: poll with backoff, park on the futex, wake one, hand off. */
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/lock.h"

/*
 * A polite lock's waiter (the queue locks) that saw the lock taken and then sees it free does
 * not take it at once: it looks again GRACE pauses later (about 3 us: a pause is some 40 ns on
 * current x86 cores) and takes it only if no acquisition happened meanwhile (@gen). An owner
 * that sends packet after packet frees the lock between them for the time it takes to build
 * the next one, plus, while a waiter watches the word, up to two transfers of the word's line
 * (its unlock and its next lock each find the line taken by the waiter's look: some 200 ns
 * each between two cores of a server CPU). A waiter that took the lock then would move the
 * lock, qdisc and queue lines to its own core on nearly every packet. Measured with two
 * senders on one queue at burst 1 on a 2-core EPYC VM: with a grace of 8 pauses (360 ns) the
 * waiter took the lock 300 000 times a second and the pair sent 0.31 of one sender's rate;
 * with 64, some 2 000 times and 0.77. An owner that really left is noticed one grace later.
 */
#define GRACE 64

/*
 * A waiter's looks at the word. Every look takes the word's cache line from the owner, who
 * writes it on every unlock (some 200 ns of the owner's time each, measured on 2 cores): the
 * gaps between looks double. A new waiter looks FIRST_LOOKS times, gaps of 1 to SPIN_GAP_MAX
 * pauses (a little over a burst's driver call, a few microseconds), and parks. A woken one
 * looks WOKEN_LOOKS times, gaps growing to WOKEN_GAP_MAX pauses (1 to 2 ms in all, longer than
 * the fairness period, so that it is awake when the hand-off comes), before it parks again:
 * going back to sleep clears WOKEN, so that the owner's next unlock pays a wake-up system call.
 * With a busy owner that is the costly part: the owner unlocks every few hundred nanoseconds,
 * sooner than the waiter's futex wait reaches the kernel, so nearly every attempt to sleep is
 * answered at once by a wake that finds nobody asleep (traced at 256-pause gaps: some 9 000
 * such wakes a second per thread, and 5 000 waits that returned EAGAIN). Sparse looks over a
 * round trip longer than the fairness period keep both rare and the owner's line at home; the
 * price, a hand-off noticed up to one gap late, is smaller. Two senders on one queue sent, of
 * one sender's rate (burst 1, then burst 32, medians of interleaved runs): gaps of at most 64
 * pauses over 48 looks 0.69 and 0.75; 256 over 12 looks 0.62 and 0.74; 256 over 24 looks 0.82
 * and 0.83; 256 over 48 looks 0.83 and 0.84; 512 over 48 0.89 and 0.90; 1024 over 48 0.88 and
 * 0.98; 2048 over 48 0.96 and 1.04, where 8 senders at burst 1 fell from 0.82 to 0.74.
 *
 * No waiter ever yields its CPU (sched_yield()) instead of parking: under Linux's EEVDF
 * scheduler (6.6 and later) every yield moves the caller's virtual deadline a whole slice
 * later, so a thread that yields in a loop next to any CPU-bound task is not run again for as
 * many slices as it yielded. Measured with a spinning process on each core: two senders on one
 * queue kept 2 % of their quiet rate with a few hundred yields a second, while every sender
 * thread sat runnable and unscheduled.
 */
#define SPIN_GAP_MAX  64
#define FIRST_LOOKS   7
#define WOKEN_GAP_MAX 1024
#define WOKEN_LOOKS   48
/* Looks a thread that parked during a hand-off leaves it to the awake waiter it was meant for:
 * past the doubling gaps, so the waiter has had its next look. */
#define HANDOFF_DEFER 12

/* After this much time of barging the owner hands the lock to a parked waiter: the eventual
 * fairness of WebKit's WTF::Lock and Rust's parking_lot, which bound a waiter's starvation
 * without paying a hand-off on every unlock. The clock is read once every FAIR_EVERY slow
 * unlocks. */
#define FAIR_NS	   500000ull
#define FAIR_EVERY 64

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

static void relax(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		mqtx_cpu_relax();
}

/*
 * Poll politely (see GRACE) until the lock is ours, or until @looks looks are spent. @count:
 * what the caller is counted as in the word (MQTX_LOCK_POLLER or MQTX_LOCK_PARKED), uncounted
 * when it takes the lock; a parked waiter may also take a hand-off. Gaps double up to @cap
 * pauses.
 */
static bool poll_lock(struct mqtx_spinlock *l, unsigned count, unsigned looks, unsigned defer,
		      unsigned cap)
{
	unsigned gap = 1, g = 0, clear = count == MQTX_LOCK_PARKED ? MQTX_LOCK_WOKEN : 0;
	unsigned v = atomic_load_explicit(&l->v, memory_order_relaxed);
	bool seen = false;

	for (unsigned look = 0;; look++) {
		if (count == MQTX_LOCK_PARKED && (v & MQTX_LOCK_HANDOFF) && look >= defer) {
			/* Passed to us: HELD stays set. */
			if (cas(&l->v, &v, (v & ~(MQTX_LOCK_HANDOFF | MQTX_LOCK_WOKEN)) - count))
				goto mine;
			continue;
		}
		if (!(v & MQTX_LOCK_HELD) && !seen && l->polite) {
			/* Free, but maybe only between two of the owner's packets. */
			seen = true;
			g = atomic_load_explicit(&l->gen, memory_order_relaxed);
			relax(GRACE);
			v = atomic_load_explicit(&l->v, memory_order_relaxed);
			continue;
		}
		if (!(v & MQTX_LOCK_HELD) &&
		    (!l->polite || atomic_load_explicit(&l->gen, memory_order_relaxed) == g)) {
			if (cas(&l->v, &v, ((v | MQTX_LOCK_HELD) & ~clear) - count))
				goto mine;
			continue;
		}
		/* Held, or taken and freed again within the grace: the owner is busy. */
		seen = false;
		if (look >= looks)
			return false;
		relax(gap);
		gap = gap < cap ? gap * 2 : gap;
		v = atomic_load_explicit(&l->v, memory_order_relaxed);
	}
mine:
	mqtx__spin_bump(l);
	return true;
}

enum settle { SETTLE_SLEEP, SETTLE_TAKEN, SETTLE_FREE, SETTLE_PENDING };

/*
 * A parked waiter about to sleep: take the lock if it was handed to us (only a waiter that has
 * been woken may at once: a thread that parks while the lock is on its way, the former owner
 * among them, leaves it HANDOFF_DEFER looks to the waiter it was meant for, then takes it, so
 * that a hand-off whose waiter went to sleep is never left pending); if it is held, make
 * sure no WOKEN stays set for us (we may have been the waiter on its way, and with WOKEN left
 * set no unlock would wake anyone): the unlock of the owner seen holding it then wakes one. If
 * it is free, neither sleep (it could stay free with every waiter asleep) nor take it at once
 * (the owner may be between two packets): poll again.
 */
static enum settle settle(struct mqtx_spinlock *l, bool woken)
{
	unsigned v = atomic_load_explicit(&l->v, memory_order_relaxed);

	for (;;) {
		if (v & MQTX_LOCK_HANDOFF) {
			if (!woken)
				return SETTLE_PENDING;
			if (cas(&l->v, &v,
				(v & ~(MQTX_LOCK_HANDOFF | MQTX_LOCK_WOKEN)) - MQTX_LOCK_PARKED)) {
				mqtx__spin_bump(l);
				return SETTLE_TAKEN;
			}
		} else if (!(v & MQTX_LOCK_HELD)) {
			return SETTLE_FREE;
		} else if (!(v & MQTX_LOCK_WOKEN) || cas(&l->v, &v, v & ~MQTX_LOCK_WOKEN)) {
			return SETTLE_SLEEP;
		}
	}
}

/*
 * The lock was held at the first try. A thread that finds it free takes it (it has not been
 * waiting: barging keeps a busy owner's lines on its core). Else it counts itself a poller
 * and polls politely, then parks: it counts itself parked and sleeps on the wake-up word
 * @seq, which only a waking unlock changes. (Sleeping on the lock word does not work: it
 * changes on every lock and unlock, so with a busy owner the sleep returns at once, every
 * time.) @seq is read before the lock is looked at a last time, so an unlock that wakes after
 * that look changes it and the sleep returns at once: no wake-up is missed. A woken waiter
 * polls again, politely, and parks again if the owner keeps the lock busy.
 */
void mqtx__spin_wait(struct mqtx_spinlock *l)
{
	unsigned v = atomic_load_explicit(&l->v, memory_order_relaxed), count = MQTX_LOCK_POLLER;

	for (;;) {
		if (!(v & MQTX_LOCK_HELD)) {
			if (cas(&l->v, &v, v | MQTX_LOCK_HELD)) {
				mqtx__spin_bump(l);
				return;
			}
			continue;
		}
		if ((v & MQTX_LOCK_POLLERS) == MQTX_LOCK_POLLERS) {
			count = 0; /* too many polling to count: park at once */
			break;
		}
		if (cas(&l->v, &v, v + MQTX_LOCK_POLLER))
			break;
	}
	if (count && poll_lock(l, count, FIRST_LOOKS, 0, SPIN_GAP_MAX))
		return;
	v = atomic_load_explicit(&l->v, memory_order_relaxed);
	while (!cas(&l->v, &v, v - count + MQTX_LOCK_PARKED))
		;
	for (bool woken = false;; woken = true) {
		unsigned seq = atomic_load_explicit(&l->seq, memory_order_acquire);
		enum settle st = settle(l, woken);

		if (st == SETTLE_TAKEN)
			return;
		if (st == SETTLE_SLEEP)
			futex_wait(&l->seq, seq);
		/* A hand-off on its way to another waiter: not ours to sleep through (its waiter
		 * may be asleep, or be us), nor to take at once. */
		if (poll_lock(l, MQTX_LOCK_PARKED, WOKEN_LOOKS,
			      st == SETTLE_PENDING ? HANDOFF_DEFER : 0, WOKEN_GAP_MAX))
			return;
	}
}

/* Owner only: has the fairness deadline passed? The clock is read every FAIR_EVERY calls,
 * and the deadline moves on only once the lock has been handed over (@handed). */
static bool fair_due(struct mqtx_spinlock *l)
{
	uint64_t now;

	if (l->fair_left) {
		l->fair_left--;
		return false;
	}
	l->fair_left = FAIR_EVERY - 1;
	now = now_ns();
	if (!l->fair_at)
		l->fair_at = now + FAIR_NS;
	return now >= l->fair_at;
}

/*
 * Unlock with waiters (the word is not just HELD). With parked ones, wake one unless a woken
 * one is on its way. Once the fairness deadline has passed, the lock is handed over instead
 * of released, to the woken waiter (awake and polling: it owns the lock at its next look, and
 * no barging thread can take it first). With none awake, one is woken first: a hand-off to a
 * sleeping thread would leave the lock idle for as long as the scheduler takes to run it
 * (tens of microseconds on a VM whose other CPU is idle).
 */
void mqtx__spin_release(struct mqtx_spinlock *l, unsigned v)
{
	bool fair = v >= MQTX_LOCK_PARKED && fair_due(l);

	for (;;) {
		unsigned nv;

		if (v >= MQTX_LOCK_PARKED && fair && (v & MQTX_LOCK_WOKEN)) {
			nv = v | MQTX_LOCK_HANDOFF;
			/* Before the lock is the new owner's: the next deadline starts with its
			 * first slow unlock. */
			l->fair_at = 0;
			l->fair_left = 0;
		} else if (v >= MQTX_LOCK_PARKED && !(v & MQTX_LOCK_WOKEN)) {
			nv = (v & ~MQTX_LOCK_HELD) | MQTX_LOCK_WOKEN;
		} else {
			nv = v & ~MQTX_LOCK_HELD;
		}
		if (!atomic_compare_exchange_weak_explicit(&l->v, &v, nv, memory_order_release,
							   memory_order_relaxed))
			continue;
		/* A hand-off wakes too: its awake waiter may be one that had not yet slept when
		 * it was counted woken, and sleeps now on the old @seq. */
		if ((nv & ~v & MQTX_LOCK_WOKEN) || (nv & MQTX_LOCK_HANDOFF)) {
			atomic_fetch_add_explicit(&l->seq, 1, memory_order_release);
			futex_wake_one(&l->seq);
		}
		return;
	}
}

/* The raw lock's wait: polls with doubling gaps for RAW_BUDGET pauses (some hundreds of
 * microseconds: longer than any driver call of a burst), then a yield between looks (see
 * lock.h for why this lock does not park). A holder that keeps it that long has lost its CPU,
 * and yielding, costly as it is under EEVDF (see above), is then what lets it run again when
 * it shares our core. */
#define RAW_BUDGET 8192

void mqtx__raw_wait(struct mqtx_rawlock *l)
{
	unsigned spent = 0, gap = 1;

	do {
		while (atomic_load_explicit(&l->v, memory_order_relaxed)) {
			if (spent >= RAW_BUDGET) {
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
