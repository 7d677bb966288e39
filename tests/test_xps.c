// SPDX-License-Identifier: MIT
/* XPS and the per-flow queue cache: senders on a CPU use that CPU's queues, a flow keeps its
 * queue until it may move (ooo_okay) or its queue leaves the range, and many senders of the
 * same flows never split a flow over two queues. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers.h"
#include "txn_fixture.h"

#define NQ    4
#define FLOWS 256

/* Records the queue each flow (the packet's source port) last left on, and counts a flow
 * seen on two queues. */
struct rec {
	_Atomic int queue_of[FLOWS];
	atomic_uint split, taken[NQ];
	atomic_uint hashed; /* packets that reached the driver with their flow hash computed */
};

static unsigned rec_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			 unsigned n, bool more)
{
	struct rec *r = mqtx_dev_priv(dev);
	int q = (int)mqtx_txq_index(txq);

	(void)more;
	for (unsigned i = 0; i < n; i++) {
		if (pkts[i]->flags & MQTX_PKT_F_HASH_VALID)
			atomic_fetch_add(&r->hashed, 1);
		unsigned flow = (unsigned)(pkts[i]->data[34] << 8 | pkts[i]->data[35]) % FLOWS;
		int was = atomic_exchange(&r->queue_of[flow], q + 1);

		if (was && was != q + 1)
			atomic_fetch_add(&r->split, 1);
	}
	atomic_fetch_add(&r->taken[q], n);
	mqtx_pkt_free_bulk(pkts, n);
	return n;
}

static const struct mqtx_dev_ops rec_ops = {
	.kind = "rec",
	.priv_size = sizeof(struct rec),
	.xmit_burst = rec_xmit,
};

struct env {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
};

static void make(struct env *e)
{
	struct mqtx_dev_cfg cfg = { .name = "x0", .ops = &rec_ops, .num_txq = NQ };

	assert_int_equal(mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 4096 }, &e->pool), 0);
	assert_int_equal(mqtx_dev_create(&cfg, &e->dev), 0);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
}

static void unmake(struct env *e)
{
	assert_int_equal(test_env_free(e->dev, e->pool, NULL), 0);
}

static struct rec *rec(struct env *e)
{
	return mqtx_dev_priv(e->dev);
}

/* Run the calling thread on @cpu alone; false when this machine cannot. */
static bool pin(unsigned cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !pthread_setaffinity_np(pthread_self(), sizeof(set), &set) &&
	       sched_getcpu() == (int)cpu;
}

static uint16_t send_flow(struct env *e, unsigned flow, uint16_t flags)
{
	struct mqtx_pkt *p = test_udp_pkt(e->pool, 0x0a000001, (uint16_t)flow, 80, 0);

	assert_non_null(p);
	p->flags |= flags;
	assert_int_equal(mqtx_dev_xmit(e->dev, p), MQTX_XMIT_SUCCESS);
	return (uint16_t)(atomic_load(&rec(e)->queue_of[flow % FLOWS]) - 1);
}

static void skip_unless_two_cpus(void)
{
	if (!pin(1) || !pin(0)) {
		print_message("skip: this test needs CPUs 0 and 1\n");
		skip();
	}
}

static void test_xps_steers_by_cpu(void **state)
{
	static const unsigned cpu0[] = { 0 }, cpu1[] = { 1 };
	unsigned got[4];
	struct env e;

	(void)state;
	skip_unless_two_cpus();
	make(&e);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 2, cpu0, 1), 0);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 3, cpu0, 1), 0);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 0, cpu1, 1), 0);
	assert_int_equal(mqtx_dev_xps(e.dev, 2, got, 4), 1);
	assert_int_equal(got[0], 0);
	assert_int_equal(mqtx_dev_xps(e.dev, 1, got, 4), 0);
	assert_true(pin(0));
	for (unsigned f = 0; f < 200; f++)
		assert_true(send_flow(&e, f, 0) >= 2);
	assert_true(atomic_load(&rec(&e)->taken[2]) > 0 && atomic_load(&rec(&e)->taken[3]) > 0);
	assert_true(pin(1));
	for (unsigned f = 0; f < 200; f++)
		assert_int_equal(send_flow(&e, f, 0), 0); /* CPU 1's only queue */
	/* Cleared: CPU 1 falls back to the hash over every queue. */
	assert_int_equal(mqtx_dev_set_xps(e.dev, 0, NULL, 0), 0);
	memset(rec(&e)->taken, 0, sizeof(rec(&e)->taken));
	for (unsigned f = 0; f < 200; f++)
		send_flow(&e, f, 0);
	for (unsigned q = 0; q < NQ; q++)
		assert_true(atomic_load(&rec(&e)->taken[q]) > 0);
	unmake(&e);
}

/* The flow hash is computed only where selection chooses among several queues, as Linux's
 * get_xps_queue() hashes only for a map of more than one; mqtx_dev_flow_hash() computes it on
 * demand, once. */
static void test_xps_hash_only_to_choose(void **state)
{
	static const unsigned cpu0[] = { 0 };
	struct mqtx_pkt *p;
	struct env e;

	(void)state;
	if (!pin(0)) {
		print_message("skip: this test needs CPU 0\n");
		skip();
	}
	make(&e);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 2, cpu0, 1), 0);
	for (unsigned f = 0; f < 100; f++)
		assert_int_equal(send_flow(&e, f, 0), 2);
	assert_int_equal(atomic_load(&rec(&e)->hashed), 0);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 3, cpu0, 1), 0);
	for (unsigned f = 0; f < 100; f++)
		assert_true(send_flow(&e, f, 0) >= 2);
	assert_int_equal(atomic_load(&rec(&e)->hashed), 100);

	p = test_udp_pkt(e.pool, 0x0a000001, 7, 80, 0);
	assert_non_null(p);
	assert_false(p->flags & MQTX_PKT_F_HASH_VALID);
	assert_true(mqtx_dev_flow_hash(e.dev, p));
	assert_true(p->flags & MQTX_PKT_F_HASH_VALID);
	p->data[12] = 0x88; /* not IP: no flow */
	p->data[13] = 0xb5;
	p->flags &= (uint16_t)~MQTX_PKT_F_HASH_VALID;
	assert_false(mqtx_dev_flow_hash(e.dev, p));
	assert_true(p->flags & MQTX_PKT_F_NO_HASH);
	mqtx_pkt_free(p);
	unmake(&e);
}

static void test_xps_bad_input(void **state)
{
	unsigned big = MQTX_XPS_CPUS_MAX, cpu = 0, got[1];
	struct env e;
	long k;

	(void)state;
	make(&e);
	assert_int_equal(mqtx_dev_set_xps(e.dev, NQ, &cpu, 1), -EINVAL);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 0, &big, 1), -EINVAL);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 0, NULL, 1), -EINVAL);
	assert_int_equal(mqtx_dev_xps(e.dev, NQ, got, 1), -EINVAL);
	assert_int_equal(mqtx_dev_set_flow_cache(e.dev, 3), -EINVAL);
	assert_int_equal(mqtx_dev_set_flow_cache(e.dev, 1u << 21), -EINVAL);
	/* Out of memory changes nothing: queue 1 keeps CPU 0. */
	assert_int_equal(mqtx_dev_set_xps(e.dev, 1, &cpu, 1), 0);
	mqtx_set_allocator(&fi_allocator);
	fi_arm(1);
	cpu = 1;
	k = mqtx_dev_set_xps(e.dev, 1, &cpu, 1);
	assert_true(fi_disarm());
	mqtx_set_allocator(NULL);
	assert_int_equal(k, -ENOMEM);
	assert_int_equal(mqtx_dev_xps(e.dev, 1, got, 1), 1);
	assert_int_equal(got[0], 0);
	/* Clearing the map too: it fails as a whole and the map stays in use (and alive). */
	mqtx_set_allocator(&fi_allocator);
	fi_arm(1);
	k = mqtx_dev_set_xps(e.dev, 1, NULL, 0);
	assert_true(fi_disarm());
	mqtx_set_allocator(NULL);
	assert_int_equal(k, -ENOMEM);
	assert_int_equal(mqtx_dev_xps(e.dev, 1, got, 1), 1);
	assert_int_equal(send_flow(&e, 7, 0) < NQ, true);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 1, NULL, 0), 0);
	assert_int_equal(mqtx_dev_xps(e.dev, 1, got, 1), 0);
	unmake(&e);
}

/* With the cache a flow stays put when XPS changes under it, until a packet says it may move. */
static void test_flow_cache_ooo_okay(void **state)
{
	static const unsigned cpu0[] = { 0 };
	struct env e;
	uint16_t before[8];

	(void)state;
	skip_unless_two_cpus();
	make(&e);
	assert_true(pin(0));
	assert_int_equal(mqtx_dev_set_flow_cache(e.dev, 1024), 0);
	for (unsigned f = 0; f < 8; f++)
		before[f] = send_flow(&e, f, 0);
	/* Now CPU 0 may use queue 3 only. */
	assert_int_equal(mqtx_dev_set_xps(e.dev, 3, cpu0, 1), 0);
	for (unsigned f = 0; f < 8; f++)
		assert_int_equal(send_flow(&e, f, 0), before[f]);
	for (unsigned f = 0; f < 8; f++) {
		assert_int_equal(send_flow(&e, f, MQTX_PKT_F_OOO_OKAY), 3);
		assert_int_equal(send_flow(&e, f, 0), 3); /* and it stays there */
	}
	/* A new flow goes where XPS says at once. */
	assert_int_equal(send_flow(&e, 100, 0), 3);
	/* Without the cache every packet follows XPS. */
	assert_int_equal(mqtx_dev_set_flow_cache(e.dev, 0), 0);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 3, NULL, 0), 0);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 1, cpu0, 1), 0);
	assert_int_equal(send_flow(&e, 0, 0), 1);
	unmake(&e);
}

/* A cached queue beyond the range in use is not used. */
static void test_flow_cache_range(void **state)
{
	struct env e;
	unsigned f;

	(void)state;
	make(&e);
	assert_int_equal(mqtx_dev_set_flow_cache(e.dev, 256), 0);
	for (f = 0; f < 200 && send_flow(&e, f, 0) != 3; f++)
		;
	assert_true(f < 200); /* some flow hashes to queue 3 */
	assert_int_equal(mqtx_dev_close(e.dev), 0);
	assert_int_equal(mqtx_dev_set_real_num_txq(e.dev, 2), 0);
	assert_int_equal(mqtx_dev_open(e.dev), 0);
	assert_true(send_flow(&e, f, 0) < 2);
	unmake(&e);
}

struct sender {
	struct env *e;
	unsigned cpu;
	bool ok;
	unsigned sent, refused;
};

/* No cmocka assertion off the main thread: a sender counts, the main thread checks. A queue
 * may fill while the other sender runs it (a slow sanitizer build, a busy machine): such a
 * drop is counted and the packet is not retried. */
static void *sender_main(void *arg)
{
	struct sender *s = arg;

	s->ok = pin(s->cpu);
	for (unsigned round = 0; s->ok && round < 40; round++) {
		for (unsigned f = 0; f < FLOWS; f++) {
			struct mqtx_pkt *p =
				test_udp_pkt(s->e->pool, 0x0a000001, (uint16_t)f, 80, 0);

			if (!p) {
				sched_yield(); /* the pool refills as the other sender drains */
				f--;
				continue;
			}
			if (mqtx_dev_xmit(s->e->dev, p) != MQTX_XMIT_SUCCESS)
				s->refused++;
			s->sent++;
		}
	}
	return NULL;
}

/* Two senders on two CPUs whose XPS queues differ send the same flows: with the cache no flow
 * is ever split over two queues (which would reorder it); conservation holds. */
static void test_flow_cache_no_split(void **state)
{
	static const unsigned cpu0[] = { 0 }, cpu1[] = { 1 };
	struct sender s[2];
	struct mqtx_dev_stats st;
	pthread_t t[2];
	struct env e;

	(void)state;
	skip_unless_two_cpus();
	make(&e);
	assert_int_equal(mqtx_dev_set_flow_cache(e.dev, 4096), 0);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 0, cpu0, 1), 0);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 1, cpu0, 1), 0);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 2, cpu1, 1), 0);
	assert_int_equal(mqtx_dev_set_xps(e.dev, 3, cpu1, 1), 0);
	for (int i = 0; i < 2; i++) {
		s[i] = (struct sender){ .e = &e, .cpu = (unsigned)i };
		assert_int_equal(pthread_create(&t[i], NULL, sender_main, &s[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_true(s[0].ok && s[1].ok);
	assert_int_equal(s[0].sent + s[1].sent, 2 * 40 * FLOWS);
	assert_int_equal(atomic_load(&rec(&e)->split), 0);
	mqtx_dev_get_stats(e.dev, &st);
	assert_int_equal(st.xmit, 2 * 40 * FLOWS);
	assert_int_equal(test_drops(&st), s[0].refused + s[1].refused);
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st) + st.txq.qlen);
	/* The same without the cache splits flows: what the cache is for. */
	assert_int_equal(mqtx_dev_set_flow_cache(e.dev, 0), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, sender_main, &s[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_true(atomic_load(&rec(&e)->split) > 0);
	unmake(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xps_steers_by_cpu),
		cmocka_unit_test(test_xps_bad_input),
		cmocka_unit_test(test_xps_hash_only_to_choose),
		cmocka_unit_test(test_flow_cache_ooo_okay),
		cmocka_unit_test(test_flow_cache_range),
		cmocka_unit_test(test_flow_cache_no_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
