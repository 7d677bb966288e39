// SPDX-License-Identifier: MIT
/* The queue lock: mutual exclusion and no lost update when threads outnumber the CPUs four
 * times over; a waiter that parks is woken by the unlock; after the fairness deadline the lock
 * is handed to a parked waiter, which neither a barging lock nor a trylock can take first.
 * Waits are on conditions, bounded only to report a failure instead of hanging. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/lock.h"

#define ROUNDS	100000
#define WAIT_NS (30ull * 1000000000ull) /* a bound on failure, never a speed */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Waiters parked on @l, or about to park: the count in the lock word. */
static unsigned parked(struct mqtx_spinlock *l)
{
	return atomic_load(&l->v) / MQTX_LOCK_PARKED;
}

/* The scheduler's state of thread @tid: 'S' while it sleeps (in FUTEX_WAIT here). */
static char thread_state(int tid)
{
	char path[64], buf[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
	return p && p[1] == ' ' ? p[2] : '?';
}

struct shared {
	struct mqtx_spinlock lock;
	atomic_int inside;   /* holders at this moment: never more than one */
	unsigned long count; /* written only under the lock, deliberately not atomic */
	atomic_uint overlaps;
};

static void *worker(void *arg)
{
	struct shared *s = arg;

	for (unsigned i = 0; i < ROUNDS; i++) {
		mqtx_spin_lock(&s->lock);
		if (atomic_fetch_add(&s->inside, 1))
			atomic_fetch_add(&s->overlaps, 1);
		s->count++;
		if (i % 64 == 0)
			sched_yield(); /* a holder that loses its CPU: its waiters park */
		atomic_fetch_sub(&s->inside, 1);
		mqtx_spin_unlock(&s->lock);
	}
	return NULL;
}

static void test_oversubscribed(void **state)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = (unsigned)(cpus < 1 ? 4 : cpus > 8 ? 32 : 4 * cpus);
	struct shared s = { .count = 0 };
	pthread_t t[32];

	(void)state;
	mqtx_spin_init(&s.lock);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, &s), 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(atomic_load(&s.overlaps), 0);
	assert_int_equal(s.count, (unsigned long)n * ROUNDS);
	/* Every waiter that parked was counted out again; no bit is left behind. */
	assert_int_equal(atomic_load(&s.lock.v), 0);
}

static void test_trylock(void **state)
{
	struct mqtx_spinlock l;

	(void)state;
	mqtx_spin_init(&l);
	assert_true(mqtx_spin_trylock(&l));
	assert_false(mqtx_spin_trylock(&l));
	mqtx_spin_unlock(&l);
	mqtx_spin_lock(&l);
	assert_false(mqtx_spin_trylock(&l));
	mqtx_spin_unlock(&l);
	assert_true(mqtx_spin_trylock(&l));
	mqtx_spin_unlock(&l);
}

/* ---- a waiter that parks ---- */

struct waiter {
	struct mqtx_spinlock *l;
	pthread_t th;
	atomic_int tid;
	atomic_int got;	    /* it has held the lock */
	atomic_int release; /* may let it go (else it holds it until told) */
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	atomic_store(&w->tid, (int)syscall(SYS_gettid));
	mqtx_spin_lock(w->l);
	atomic_store(&w->got, 1);
	while (!atomic_load(&w->release))
		sched_yield();
	mqtx_spin_unlock(w->l);
	return NULL;
}

static void waiter_start(struct waiter *w, struct mqtx_spinlock *l, bool release)
{
	w->l = l;
	atomic_init(&w->tid, 0);
	atomic_init(&w->got, 0);
	atomic_init(&w->release, release);
	assert_int_equal(pthread_create(&w->th, NULL, waiter_main, w), 0);
}

/* Until @n waiters are counted parked on @l and each of @w sleeps in the kernel. */
static void wait_parked(struct mqtx_spinlock *l, struct waiter *w, unsigned n)
{
	uint64_t until = mono_ns() + WAIT_NS;

	for (;;) {
		bool asleep = parked(l) == n;

		for (unsigned i = 0; i < n && asleep; i++)
			asleep = atomic_load(&w[i].tid) &&
				 thread_state(atomic_load(&w[i].tid)) == 'S';
		if (asleep)
			return;
		if (mono_ns() > until)
			fail_msg("%u waiters not parked: word %#x", n, atomic_load(&l->v));
		sched_yield();
	}
}

static void wait_got(struct waiter *w)
{
	uint64_t until = mono_ns() + WAIT_NS;

	while (!atomic_load(&w->got)) {
		if (mono_ns() > until)
			fail_msg("a parked waiter never got the lock");
		sched_yield();
	}
}

/* Parked waiters sleep until an unlock wakes one; each owner's unlock wakes the next. */
static void test_parked_woken_by_unlock(void **state)
{
	struct mqtx_spinlock l;
	struct waiter w[3];

	(void)state;
	mqtx_spin_init(&l);
	mqtx_spin_lock(&l);
	for (unsigned i = 0; i < 3; i++)
		waiter_start(&w[i], &l, true);
	wait_parked(&l, w, 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(atomic_load(&w[i].got), 0);
	/* Nothing but a wake-up can end their sleep: there is no timeout on it. */
	mqtx_spin_unlock(&l);
	for (unsigned i = 0; i < 3; i++) {
		wait_got(&w[i]);
		assert_int_equal(pthread_join(w[i].th, NULL), 0);
	}
	assert_int_equal(atomic_load(&l.v), 0);
}

/* A second thread that takes and releases the lock over and over, counting its turns. */
struct rival {
	struct mqtx_spinlock *l;
	pthread_t th;
	atomic_ullong turns;
	atomic_int stop;
};

static void *rival_main(void *arg)
{
	struct rival *r = arg;

	while (!atomic_load(&r->stop)) {
		mqtx_spin_lock(r->l);
		atomic_fetch_add(&r->turns, 1);
		mqtx_spin_unlock(r->l);
	}
	return NULL;
}

/*
 * Two threads re-take a polite lock in tight loops. The one that waits parks, is woken, finds
 * the owner busy and keeps polling; once the fairness deadline has passed the owner's unlock
 * hands the lock to it: HELD is never cleared, so whenever this thread sees a hand-off after
 * its unlock, its trylock fails. Its lock may still take the lock back when the rival, off its
 * CPU, has not looked within HANDOFF_DEFER looks (a hand-off is never left pending); hand-offs
 * that reached the rival - its lock returned only after the rival's turn - must be seen (a
 * bound of WAIT_NS on failure, never a speed).
 */
static void test_handoff_after_deadline(void **state)
{
	struct rival r = { .turns = 0, .stop = 0 };
	struct mqtx_spinlock l;
	unsigned handoffs = 0, reached = 0;
	uint64_t until = mono_ns() + WAIT_NS;

	(void)state;
	mqtx_spin_init_polite(&l);
	r.l = &l;
	assert_int_equal(pthread_create(&r.th, NULL, rival_main, &r), 0);
	mqtx_spin_lock(&l);
	while (reached < 3) {
		unsigned long long before = atomic_load(&r.turns);
		bool handed;

		mqtx_spin_unlock(&l);
		handed = atomic_load(&l.v) & MQTX_LOCK_HANDOFF;
		if (handed)
			assert_false(mqtx_spin_trylock(&l));
		mqtx_spin_lock(&l);
		if (handed) {
			reached += atomic_load(&r.turns) > before;
			handoffs++;
		}
		if (mono_ns() > until)
			fail_msg("%u hand-offs seen, %u reached the rival, which had %llu turns",
				 handoffs, reached, (unsigned long long)atomic_load(&r.turns));
	}
	atomic_store(&r.stop, 1);
	mqtx_spin_unlock(&l);
	assert_int_equal(pthread_join(r.th, NULL), 0);
	assert_int_equal(atomic_load(&l.v), 0);
}

/*
 * A thread re-takes the lock in a tight loop while another is parked: the parked waiter gets
 * the lock within WAIT_NS of re-takes, a bound on failure, not a count that a busy machine
 * could outrun while the waiter waits for a CPU (woken each time the word says nobody is on
 * the way, then by the hand-off), and whenever the owner saw its unlock hand the lock off, its
 * trylock failed. Its lock may take the lock back when the waiter, off its CPU, has not looked
 * within HANDOFF_DEFER looks (a hand-off is never left pending), so only the bound on re-takes
 * is asserted of the hand-offs; test_handoff_after_deadline() counts those that reach a rival.
 */
static void test_barging_owner_yields(void **state)
{
	uint64_t until = mono_ns() + WAIT_NS;
	struct mqtx_spinlock l;
	unsigned long i;
	struct waiter w;

	(void)state;
	mqtx_spin_init(&l);
	mqtx_spin_lock(&l);
	waiter_start(&w, &l, true);
	wait_parked(&l, &w, 1);
	for (i = 0; !atomic_load(&w.got) && ((i & 1023) || mono_ns() < until); i++) {
		bool handed;

		mqtx_spin_unlock(&l);
		handed = atomic_load(&l.v) & MQTX_LOCK_HANDOFF;
		assert_false(handed && mqtx_spin_trylock(&l));
		mqtx_spin_lock(&l);
	}
	mqtx_spin_unlock(&l);
	if (!atomic_load(&w.got))
		fail_msg("the parked waiter starved for %lu re-takes", i);
	assert_int_equal(pthread_join(w.th, NULL), 0);
	assert_int_equal(atomic_load(&l.v), 0);
	print_message("got the lock after %lu re-takes\n", i);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trylock),
		cmocka_unit_test(test_parked_woken_by_unlock),
		cmocka_unit_test(test_handoff_after_deadline),
		cmocka_unit_test(test_barging_owner_yields),
		cmocka_unit_test(test_oversubscribed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
