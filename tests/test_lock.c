// SPDX-License-Identifier: MIT
/* The queue spinlock: mutual exclusion and no lost update when threads outnumber the CPUs
 * four times over, so waiters go through every stage of the slow path (spin, yield, nap). */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/lock.h"

#define ROUNDS 100000

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
			sched_yield(); /* a holder that loses its CPU: the case naps are for */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trylock),
		cmocka_unit_test(test_oversubscribed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
