// SPDX-License-Identifier: MIT
/* Clocks and timers: virtual time, expiry order, re-arming, cancelling, the real clock. */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <mqtx/clock.h>

#define T0 5000000000ull

/* What the callbacks saw, in order. */
struct log {
	struct mqtx_clock *c;
	unsigned n;
	int id[32];
	uint64_t at[32];
};

struct tm {
	struct mqtx_timer t;
	struct log *log;
	int id;
	unsigned rearm; /* re-arm this many more times, `period` later */
	uint64_t period;
	struct mqtx_timer *cancel; /* cancel this one from the callback */
};

static void record(struct mqtx_timer *t, void *arg)
{
	struct tm *m = arg;
	struct log *l = m->log;

	assert_ptr_equal(&m->t, t);
	assert_false(mqtx_timer_armed(t));
	l->id[l->n] = m->id;
	l->at[l->n++] = mqtx_clock_now(l->c);
	if (m->cancel)
		mqtx_timer_cancel(m->cancel);
	if (m->rearm) {
		m->rearm--;
		mqtx_timer_arm(t, mqtx_clock_now(l->c) + m->period);
	}
}

static void tm_init(struct tm *m, struct log *l, int id)
{
	memset(m, 0, sizeof(*m));
	m->log = l;
	m->id = id;
	mqtx_timer_init(&m->t, l->c, record, m);
}

static void test_virtual_now_advance(void **state)
{
	struct mqtx_clock *c;

	(void)state;
	assert_int_equal(mqtx_clock_new_virtual(T0, &c), 0);
	assert_true(mqtx_clock_is_virtual(c));
	assert_int_equal(mqtx_clock_now(c), T0);
	assert_int_equal(mqtx_clock_advance(c, 0), 0);
	assert_int_equal(mqtx_clock_now(c), T0);
	assert_int_equal(mqtx_clock_advance(c, 250), 0);
	assert_int_equal(mqtx_clock_now(c), T0 + 250);
	assert_int_equal(mqtx_clock_advance_to(c, T0 + 1000), 0);
	assert_int_equal(mqtx_clock_now(c), T0 + 1000);
	/* The past is a no-op: time never goes back. */
	assert_int_equal(mqtx_clock_advance_to(c, T0), 0);
	assert_int_equal(mqtx_clock_now(c), T0 + 1000);
	assert_int_equal(mqtx_clock_next_timer(c), UINT64_MAX);
	mqtx_clock_free(c);
	mqtx_clock_free(NULL);
}

static void test_expiry_order(void **state)
{
	struct log l = { 0 };
	struct tm m[6];
	/* Armed in this order; equal expiries (ids 1, 3, 5 at +300) fire in arming order. */
	static const uint64_t when[6] = { 500, 300, 100, 300, 700, 300 };
	static const int want[6] = { 2, 1, 3, 5, 0, 4 };

	(void)state;
	assert_int_equal(mqtx_clock_new_virtual(T0, &l.c), 0);
	for (int i = 0; i < 6; i++) {
		tm_init(&m[i], &l, i);
		assert_false(mqtx_timer_armed(&m[i].t));
		mqtx_timer_arm(&m[i].t, T0 + when[i]);
		assert_true(mqtx_timer_armed(&m[i].t));
	}
	assert_int_equal(mqtx_clock_next_timer(l.c), T0 + 100);
	assert_int_equal(mqtx_clock_advance(l.c, 99), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(mqtx_clock_advance(l.c, 1), 1); /* exactly at expiry */
	assert_int_equal(mqtx_clock_next_timer(l.c), T0 + 300);
	assert_int_equal(mqtx_clock_advance_to(l.c, T0 + 600), 4);
	assert_int_equal(mqtx_clock_now(l.c), T0 + 600);
	assert_int_equal(mqtx_clock_next_timer(l.c), T0 + 700);
	assert_int_equal(mqtx_clock_advance(l.c, 10000), 1);
	assert_int_equal(mqtx_clock_now(l.c), T0 + 10600);
	assert_int_equal(l.n, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(l.id[i], want[i]);
		/* now == expiry while each callback runs */
		assert_int_equal(l.at[i], T0 + when[want[i]]);
		assert_false(mqtx_timer_armed(&m[i].t));
	}
	assert_int_equal(mqtx_clock_next_timer(l.c), UINT64_MAX);
	mqtx_clock_free(l.c);
}

static void test_rearm_from_callback(void **state)
{
	struct log l = { 0 };
	struct tm a, b;

	(void)state;
	assert_int_equal(mqtx_clock_new_virtual(T0, &l.c), 0);
	tm_init(&a, &l, 1);
	tm_init(&b, &l, 2);
	a.rearm = 3;
	a.period = 100;
	mqtx_timer_arm(&a.t, T0 + 100); /* fires at +100, +200, +300, +400 */
	mqtx_timer_arm(&b.t, T0 + 250);
	/* One advance runs the re-armed timer again within the same call. */
	assert_int_equal(mqtx_clock_advance(l.c, 1000), 5);
	static const int want_id[5] = { 1, 1, 2, 1, 1 };
	static const uint64_t want_at[5] = { 100, 200, 250, 300, 400 };

	assert_int_equal(l.n, 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(l.id[i], want_id[i]);
		assert_int_equal(l.at[i], T0 + want_at[i]);
	}
	assert_false(mqtx_timer_armed(&a.t));
	/* Re-arm to the current time (or the past) fires at the next advance, even by 0. */
	a.rearm = 1;
	a.period = 0;
	mqtx_timer_arm(&a.t, T0);
	assert_int_equal(mqtx_clock_next_timer(l.c), T0);
	assert_int_equal(mqtx_clock_advance(l.c, 0), 2);
	assert_int_equal(l.n, 7);
	assert_int_equal(l.at[5], T0 + 1000);
	assert_int_equal(l.at[6], T0 + 1000);
	mqtx_clock_free(l.c);
}

static void test_cancel(void **state)
{
	struct log l = { 0 };
	struct tm a, b, c;

	(void)state;
	assert_int_equal(mqtx_clock_new_virtual(T0, &l.c), 0);
	tm_init(&a, &l, 1);
	tm_init(&b, &l, 2);
	tm_init(&c, &l, 3);
	assert_false(mqtx_timer_cancel(&a.t)); /* never armed */
	mqtx_timer_arm(&a.t, T0 + 10);
	mqtx_timer_arm(&b.t, T0 + 20);
	mqtx_timer_arm(&c.t, T0 + 30);
	assert_true(mqtx_timer_cancel(&a.t));
	assert_false(mqtx_timer_armed(&a.t));
	assert_false(mqtx_timer_cancel(&a.t));
	assert_int_equal(mqtx_clock_next_timer(l.c), T0 + 20);
	/* A callback cancels a timer that is due in the same advance: it does not fire. */
	b.cancel = &c.t;
	assert_int_equal(mqtx_clock_advance(l.c, 100), 1);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.id[0], 2);
	assert_false(mqtx_timer_armed(&c.t));
	/* Re-arming moves a timer instead of adding it twice. */
	mqtx_timer_arm(&a.t, T0 + 500);
	mqtx_timer_arm(&a.t, T0 + 200);
	assert_int_equal(mqtx_clock_next_timer(l.c), T0 + 200);
	assert_int_equal(mqtx_clock_advance_to(l.c, T0 + 1000), 1);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.at[1], T0 + 200);
	assert_int_equal(mqtx_clock_next_timer(l.c), UINT64_MAX);
	/* An initialised timer without a clock is never armed. */
	struct mqtx_timer z = { 0 };

	assert_false(mqtx_timer_armed(&z));
	assert_false(mqtx_timer_cancel(&z));
	mqtx_clock_free(l.c);
}

static void test_real_clock(void **state)
{
	struct mqtx_clock *r = mqtx_clock_real();
	uint64_t a, b;

	(void)state;
	assert_ptr_equal(r, mqtx_clock_real());
	assert_false(mqtx_clock_is_virtual(r));
	assert_int_equal(mqtx_clock_advance(r, 1), -EINVAL);
	assert_int_equal(mqtx_clock_advance_to(r, UINT64_MAX), -EINVAL);
	a = mqtx_clock_now(r);
	b = mqtx_clock_now(r);
	assert_true(b >= a); /* monotonic */
	mqtx_clock_free(r);  /* ignored */
	assert_true(mqtx_clock_now(r) >= b);
}

struct flag {
	atomic_int fired;
	atomic_ullong at;
	uint64_t armed_for;
};

static void set_flag(struct mqtx_timer *t, void *arg)
{
	struct flag *f = arg;

	(void)t;
	atomic_store(&f->at, mqtx_clock_now(mqtx_clock_real()));
	atomic_fetch_add(&f->fired, 1);
}

static void test_real_timer_fires(void **state)
{
	struct mqtx_clock *r = mqtx_clock_real();
	struct mqtx_timer t, never;
	struct flag f = { 0 }, g = { 0 };
	long spins;

	(void)state;
	mqtx_timer_init(&t, r, set_flag, &f);
	mqtx_timer_init(&never, r, set_flag, &g);
	mqtx_timer_arm(&never, mqtx_clock_now(r) + 3600 * MQTX_NSEC_PER_SEC);
	f.armed_for = mqtx_clock_now(r) + 1000000; /* 1 ms from now */
	mqtx_timer_arm(&t, f.armed_for);
	/* A generous bound on polls: an invariant (it fires, once), not a duration. */
	for (spins = 0; spins < 200000000L && !atomic_load(&f.fired); spins++)
		sched_yield();
	assert_int_equal(atomic_load(&f.fired), 1);
	/* Never before its expiry. */
	assert_true(atomic_load(&f.at) >= f.armed_for);
	assert_false(mqtx_timer_armed(&t));
	assert_false(mqtx_timer_cancel(&t));
	/* The far one is still armed and is cancelled without firing. */
	assert_true(mqtx_timer_armed(&never));
	assert_true(mqtx_timer_cancel(&never));
	assert_int_equal(atomic_load(&g.fired), 0);
	assert_int_equal(atomic_load(&f.fired), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_virtual_now_advance), cmocka_unit_test(test_expiry_order),
		cmocka_unit_test(test_rearm_from_callback), cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_real_clock),	    cmocka_unit_test(test_real_timer_fires),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
