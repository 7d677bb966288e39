// SPDX-License-Identifier: MIT
/* No packet stranded: every wake-up path runs its queue when it fires on a thread that is
 * neither a sender nor a TX worker (tbf's watchdog, a driver's completion wake, BQL, a driver
 * that refuses without stopping, the sim NIC). Each in real time (invariants; waits are bounds
 * on failure, not speeds) and in virtual time (exact counts), and nothing here ever calls
 * mqtx_tx_action(): the library alone must get every packet out. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include <mqtx/sim.h>

#include "ctl_fixture.h"
#include "helpers.h"

#define NQ	      4
#define RING_MAX      256
#define COMPLETE_NS   10000ull	    /* virtual time between the ring driver's rounds */
#define T0	      1000000000ull /* start of every virtual clock */
#define MS	      1000000ull
#define WAIT_NS	      (30 * 1000 * MS) /* real time: a bound on failure, never a speed */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the ring driver: a small ring per queue, completed by a thread or a timer ---- */

struct ring_q {
	pthread_mutex_t lock;
	struct mqtx_pkt *slot[RING_MAX];
	unsigned head, count;
	uint64_t last; /* the tag of the last packet taken (order check) */
	bool seen;
};

struct ring_priv {
	struct ring_q q[NQ];
	unsigned ring;
	bool bql;
	struct mqtx_timer timer; /* virtual clock: completion rounds */
	bool virt;
	pthread_t thread; /* real clock: a plain completion thread, no section */
	atomic_bool stop;
	atomic_uint busy_left; /* refuse this many calls without stopping (NETDEV_TX_BUSY) */
	atomic_ullong taken, completed, bad_order, stack_xoff;
};

static struct ring_priv *rp(struct mqtx_dev *dev)
{
	return mqtx_dev_priv(dev);
}

static unsigned ring_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			  unsigned n, bool more)
{
	struct ring_priv *p = rp(dev);
	struct ring_q *r = &p->q[mqtx_txq_index(txq)];
	unsigned busy = atomic_load(&p->busy_left), k = 0;

	(void)more;
	while (busy && !atomic_compare_exchange_weak(&p->busy_left, &busy, busy - 1))
		;
	if (busy)
		return 0;
	pthread_mutex_lock(&r->lock);
	for (; k < n && r->count < p->ring; k++) {
		if (r->seen && pkts[k]->user <= r->last)
			atomic_fetch_add(&p->bad_order, 1);
		r->seen = true;
		r->last = pkts[k]->user;
		r->slot[(r->head + r->count++) % p->ring] = pkts[k];
		if (p->bql)
			mqtx_txq_sent(txq, pkts[k]->len, k + 1 < n);
	}
	if (r->count == p->ring)
		mqtx_txq_stop(txq);
	if (mqtx_txq_state(txq) & MQTX_TXQ_STACK_XOFF)
		atomic_fetch_add(&p->stack_xoff, 1);
	if (p->virt && r->count && !mqtx_timer_armed(&p->timer))
		mqtx_timer_arm(&p->timer, mqtx_clock_now(mqtx_dev_clock(dev)) + COMPLETE_NS);
	pthread_mutex_unlock(&r->lock);
	atomic_fetch_add(&p->taken, k);
	return k;
}

/* One completion round over every queue: free what the ring holds, report it, wake. It only
 * calls what a driver's completion calls; it never runs a queue itself. */
static bool ring_complete(struct mqtx_dev *dev)
{
	struct ring_priv *p = rp(dev);
	struct mqtx_pkt *done[RING_MAX];
	bool left = false;

	for (unsigned qi = 0; qi < NQ; qi++) {
		struct ring_q *r = &p->q[qi];
		struct mqtx_txq *txq = mqtx_dev_txq(dev, qi);
		uint32_t bytes = 0;
		unsigned k;

		pthread_mutex_lock(&r->lock);
		for (k = 0; r->count; k++, r->count--) {
			done[k] = r->slot[r->head];
			r->head = (r->head + 1) % p->ring;
			bytes += done[k]->len;
		}
		if (mqtx_txq_stopped(txq))
			mqtx_txq_wake(txq);
		pthread_mutex_unlock(&r->lock);
		if (k && p->bql)
			mqtx_txq_completed(txq, k, bytes);
		mqtx_pkt_free_bulk(done, k);
		atomic_fetch_add(&p->completed, k);
	}
	for (unsigned qi = 0; qi < NQ; qi++) {
		pthread_mutex_lock(&p->q[qi].lock);
		left |= p->q[qi].count != 0;
		pthread_mutex_unlock(&p->q[qi].lock);
	}
	return left;
}

static void ring_timer(struct mqtx_timer *t, void *arg)
{
	struct mqtx_dev *dev = arg;

	if (ring_complete(dev))
		mqtx_timer_arm(t, mqtx_clock_now(mqtx_dev_clock(dev)) + COMPLETE_NS);
}

static void *ring_thread(void *arg)
{
	struct mqtx_dev *dev = arg;
	struct timespec ts = { 0, 50000 };

	while (!atomic_load(&rp(dev)->stop)) {
		ring_complete(dev);
		nanosleep(&ts, NULL);
	}
	ring_complete(dev);
	return NULL;
}

static const struct mqtx_dev_ops ring_ops = {
	.kind = "ring",
	.priv_size = sizeof(struct ring_priv),
	.xmit_burst = ring_xmit,
};

/* ---- fixture ---- */

struct env {
	struct mqtx_ctl *ctl;
	struct mqtx_dev *dev;
	struct mqtx_clock *clock; /* NULL: the real clock */
	struct mqtx_pkt_pool *pool;
	uint64_t sent;
};

static uint16_t by_tag(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	(void)dev;
	(void)arg;
	return (uint16_t)(pkt->user % NQ);
}

/* A device of @ops (NULL: the ring driver with a @ring-slot ring), on a virtual clock or the
 * real one, up, queue picked by tag, managed by a control context named "s0". */
static void env_make(struct env *e, const struct mqtx_dev_ops *ops, unsigned ring, bool virt,
		     unsigned flags, const struct mqtx_sim_cfg *sim)
{
	struct mqtx_dev_cfg c = { .name = "s0",
				  .ops = ops ? ops : &ring_ops,
				  .num_txq = NQ,
				  .tx_queue_len = 10000,
				  .flags = flags };

	memset(e, 0, sizeof(*e));
	if (virt)
		assert_int_equal(mqtx_clock_new_virtual(T0, &e->clock), 0);
	c.clock = e->clock;
	assert_int_equal(
		mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 8192, .data_room = 1600 },
				 &e->pool),
		0);
	if (sim)
		assert_int_equal(mqtx_sim_dev_create(&c, sim, &e->dev), 0);
	else
		assert_int_equal(mqtx_dev_create(&c, &e->dev), 0);
	if (!ops) {
		struct ring_priv *p = rp(e->dev);

		p->ring = ring;
		p->bql = flags & MQTX_DEV_F_BQL;
		p->virt = virt;
		for (unsigned qi = 0; qi < NQ; qi++)
			pthread_mutex_init(&p->q[qi].lock, NULL);
		if (virt)
			mqtx_timer_init(&p->timer, e->clock, ring_timer, e->dev);
		else
			assert_int_equal(pthread_create(&p->thread, NULL, ring_thread, e->dev), 0);
	}
	mqtx_dev_set_select_queue(e->dev, by_tag, NULL);
	assert_int_equal(mqtx_dev_open(e->dev), 0);
	assert_int_equal(mqtx_ctl_new(&e->ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(e->ctl, e->dev), 0);
}

static void env_free(struct env *e, bool ring)
{
	if (ring && !e->clock) {
		atomic_store(&rp(e->dev)->stop, true);
		pthread_join(rp(e->dev)->thread, NULL);
	}
	if (ring && e->clock)
		mqtx_timer_cancel(&rp(e->dev)->timer);
	mqtx_ctl_free(e->ctl); /* destroys the device */
	assert_int_equal(mqtx_pool_in_use(e->pool), 0);
	mqtx_pool_destroy(e->pool);
	mqtx_clock_free(e->clock);
}

static void cmd(struct env *e, const char *line)
{
	char *err = NULL;

	if (fixture_run(e->ctl, line, NULL, &err))
		fail_msg("\"%s\": %s", line, err);
	free(err);
}

/* Send @n frames of @len bytes; the tag picks the queue, and each queue is one flow. */
static void send_n(struct env *e, unsigned n, uint32_t len)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t tag = e->sent++;
		struct mqtx_pkt *pkt =
			test_udp_pkt(e->pool, 0x0a000100 + (uint32_t)(tag % NQ), 1000, 2000, tag);

		assert_non_null(pkt);
		if (len > pkt->len)
			assert_non_null(mqtx_pkt_put(pkt, len - pkt->len));
		mqtx_dev_xmit(e->dev, pkt);
	}
}

/* Sent = transmitted + dropped + queued; returns the queued packets. */
static uint64_t conserved(struct env *e)
{
	struct mqtx_dev_stats st;

	mqtx_dev_get_stats(e->dev, &st);
	assert_int_equal(st.xmit, e->sent);
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st) + st.txq.qlen);
	return st.txq.qlen;
}

static uint64_t now_ns(void)
{
	return mqtx_clock_now(mqtx_clock_real());
}

/* Real time: wait until the stack holds nothing and @done() reaches what was transmitted. */
static void wait_drained(struct env *e, uint64_t (*done)(struct env *e))
{
	uint64_t until = now_ns() + WAIT_NS;
	struct timespec ts = { 0, 1000000 };
	struct mqtx_dev_stats st;

	for (;;) {
		mqtx_dev_get_stats(e->dev, &st);
		if (!st.txq.qlen && mqtx_dev_all_tx_empty(e->dev) && done(e) == st.txq.packets)
			break;
		if (now_ns() > until)
			fail_msg("stranded: %llu queued, %llu transmitted of %llu",
				 (unsigned long long)st.txq.qlen,
				 (unsigned long long)st.txq.packets, (unsigned long long)e->sent);
		nanosleep(&ts, NULL);
	}
	assert_int_equal(conserved(e), 0);
}

static uint64_t null_done(struct env *e)
{
	uint64_t pk, by;

	mqtx_null_counts(e->dev, &pk, &by);
	return pk;
}

static uint64_t ring_done(struct env *e)
{
	return atomic_load(&rp(e->dev)->completed);
}

static uint64_t sim_done(struct env *e)
{
	struct mqtx_sim_txq_stats st;

	mqtx_sim_stats(e->dev, &st);
	return st.completed_pkts;
}

/* ---- tbf: the watchdog fires on the clock's timer thread ---- */

static void tbf_real(const char *const *setup)
{
	struct env e;

	env_make(&e, &mqtx_null_ops, 0, false, 0, NULL);
	for (; *setup; setup++)
		cmd(&e, *setup);
	send_n(&e, 400, 1000); /* 400 kB at 10 Mbit/s per queue: well under a second */
	wait_drained(&e, null_done);
	assert_int_equal(null_done(&e), 400);
	env_free(&e, false);
}

static void test_tbf_root_real(void **state)
{
	static const char *const setup[] = {
		"qdisc replace dev s0 root tbf rate 10mbit burst 5k limit 1mb", NULL
	};

	(void)state;
	tbf_real(setup);
}

static void test_tbf_mq_real(void **state)
{
	static const char *const setup[] = {
		"qdisc replace dev s0 root handle 1: mq",
		"qdisc replace dev s0 parent 1:1 tbf rate 10mbit burst 5k limit 1mb",
		"qdisc replace dev s0 parent 1:2 tbf rate 10mbit burst 5k limit 1mb",
		"qdisc replace dev s0 parent 1:3 tbf rate 10mbit burst 5k limit 1mb",
		"qdisc replace dev s0 parent 1:4 tbf rate 10mbit burst 5k limit 1mb",
		NULL
	};

	(void)state;
	tbf_real(setup);
}

/*
 * rate 1mbit: a 1000-byte packet takes 8 ms of tokens; burst 2000 holds two. Five packets on
 * each of @nq queues at T0 leave at 0, 0, 8, 16 and 24 ms — run by the watchdog alone.
 */
static void tbf_virtual(const char *const *setup, unsigned nq)
{
	static const uint64_t at[] = { 0, 8 * MS - 1, 8 * MS, 16 * MS, 24 * MS };
	static const uint64_t want[] = { 2, 2, 3, 4, 5 };
	struct env e;

	env_make(&e, &mqtx_null_ops, 0, true, 0, NULL);
	for (; *setup; setup++)
		cmd(&e, *setup);
	send_n(&e, 5 * nq, 1000);
	for (unsigned i = 0; i < ARRAY_SIZE(at); i++) {
		mqtx_clock_advance_to(e.clock, T0 + at[i]);
		assert_int_equal(null_done(&e), want[i] * nq);
	}
	assert_int_equal(conserved(&e), 0);
	assert_int_equal(mqtx_clock_next_timer(e.clock), UINT64_MAX);
	env_free(&e, false);
}

static void test_tbf_root_virtual(void **state)
{
	static const char *const setup[] = {
		"qdisc replace dev s0 root tbf rate 1mbit burst 2000 limit 10000", NULL
	};

	(void)state;
	tbf_virtual(setup, 1);
}

static void test_tbf_mq_virtual(void **state)
{
	static const char *const setup[] = {
		"qdisc replace dev s0 root handle 1: mq",
		"qdisc replace dev s0 parent 1:1 tbf rate 1mbit burst 2000 limit 10000",
		"qdisc replace dev s0 parent 1:2 tbf rate 1mbit burst 2000 limit 10000",
		"qdisc replace dev s0 parent 1:3 tbf rate 1mbit burst 2000 limit 10000",
		"qdisc replace dev s0 parent 1:4 tbf rate 1mbit burst 2000 limit 10000",
		NULL
	};

	(void)state;
	tbf_virtual(setup, NQ);
}

/* ---- tbf's watchdog fires while the qdisc's runner is in the driver ---- */

/* A driver whose first call waits until another thread has moved the virtual clock on. */
struct slow_priv {
	atomic_int calls;
	atomic_int go; /* the first call may return */
	atomic_ullong taken;
	uint64_t last; /* the tag of the last packet taken (order check) */
	bool seen;
	atomic_ullong bad_order;
};

static unsigned slow_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			  unsigned n, bool more)
{
	struct slow_priv *p = mqtx_dev_priv(dev);

	(void)txq;
	(void)more;
	if (atomic_fetch_add(&p->calls, 1) == 0)
		while (!atomic_load(&p->go))
			sched_yield();
	for (unsigned i = 0; i < n; i++) {
		if (p->seen && pkts[i]->user <= p->last)
			atomic_fetch_add(&p->bad_order, 1);
		p->seen = true;
		p->last = pkts[i]->user;
	}
	atomic_fetch_add(&p->taken, n);
	mqtx_pkt_free_bulk(pkts, n);
	return n;
}

static const struct mqtx_dev_ops slow_ops = {
	.kind = "slow",
	.priv_size = sizeof(struct slow_priv),
	.xmit_burst = slow_xmit,
};

/* The other thread: once the driver is busy, the clock reaches tbf's release time. */
static void *advance_main(void *arg)
{
	struct env *e = arg;
	struct slow_priv *p = mqtx_dev_priv(e->dev);

	while (!atomic_load(&p->calls))
		sched_yield();
	mqtx_clock_advance_to(e->clock, T0 + 8 * MS); /* runs the watchdog, here */
	atomic_store(&p->go, 1);
	return NULL;
}

/*
 * rate 1mbit, burst 2000: five 1000-byte packets at T0 leave at 0, 0, 8, 16 and 24 ms. The
 * run's first batch (two packets) ends on a dequeue out of tokens, which arms the watchdog for
 * 8 ms; while that batch is in the driver another thread moves the clock to 8 ms, and the
 * watchdog's run finds the qdisc running. The runner must then dequeue again (and re-arm the
 * watchdog), or the three packets left would wait for a timer that nobody arms any more.
 */
static void test_tbf_watchdog_during_driver_call(void **state)
{
	static const char *const setup[] = {
		"qdisc replace dev s0 root handle 1: mq",
		"qdisc replace dev s0 parent 1:1 tbf rate 1mbit burst 2000 limit 10000",
		NULL,
	};
	struct mqtx_pkt *b[5];
	struct slow_priv *p;
	pthread_t adv;
	struct env e;

	(void)state;
	env_make(&e, &slow_ops, 0, true, 0, NULL);
	p = mqtx_dev_priv(e.dev);
	for (const char *const *l = setup; *l; l++)
		cmd(&e, *l);
	for (unsigned i = 0; i < 5; i++) {
		/* tags 0, 4, 8, ...: all on queue 0 */
		b[i] = test_udp_pkt(e.pool, 0x0a000100, 1000, 2000, (uint64_t)i * NQ);
		assert_non_null(b[i]);
		assert_non_null(mqtx_pkt_put(b[i], 1000 - b[i]->len));
	}
	e.sent = 5;
	assert_int_equal(pthread_create(&adv, NULL, advance_main, &e), 0);
	assert_int_equal(mqtx_dev_xmit_burst(e.dev, b, 5), 5);
	assert_int_equal(pthread_join(adv, NULL), 0);
	/* The third left at 8 ms, by the same run; the watchdog waits for the fourth. */
	assert_int_equal(atomic_load(&p->taken), 3);
	assert_int_equal(mqtx_clock_next_timer(e.clock), T0 + 16 * MS);
	mqtx_clock_advance_to(e.clock, T0 + 16 * MS);
	assert_int_equal(atomic_load(&p->taken), 4);
	mqtx_clock_advance_to(e.clock, T0 + 24 * MS);
	assert_int_equal(atomic_load(&p->taken), 5);
	assert_int_equal(atomic_load(&p->bad_order), 0);
	assert_int_equal(conserved(&e), 0);
	assert_int_equal(mqtx_clock_next_timer(e.clock), UINT64_MAX);
	env_free(&e, false);
}

/* ---- a driver's completion wakes its stopped queues (and BQL's) ---- */

static void mq_with(struct env *e, const char *kind)
{
	char line[128];

	cmd(e, "qdisc replace dev s0 root handle 1: mq");
	for (unsigned i = 1; i <= NQ; i++) {
		snprintf(line, sizeof(line), "qdisc replace dev s0 parent 1:%u %s", i, kind);
		cmd(e, line);
	}
}

static void wake_real(const char *kind, unsigned ring, unsigned flags)
{
	struct env e;

	env_make(&e, NULL, ring, false, flags, NULL);
	mq_with(&e, kind);
	send_n(&e, 2000, 64);
	wait_drained(&e, ring_done);
	assert_int_equal(atomic_load(&rp(e.dev)->bad_order), 0);
	assert_int_equal(atomic_load(&rp(e.dev)->taken), ring_done(&e));
	if (flags & MQTX_DEV_F_BQL)
		assert_true(atomic_load(&rp(e.dev)->stack_xoff) > 0);
	env_free(&e, true);
}

/*
 * 160 packets per queue, a 16-slot ring, a round every 10 us: each round completes 16 per
 * queue and the wake refills 16, so after round k exactly 64 k are complete, all by round 10,
 * without a drop (nothing waits anywhere near codel's 5 ms target).
 */
static void wake_virtual(const char *kind)
{
	struct env e;

	env_make(&e, NULL, 16, true, 0, NULL);
	mq_with(&e, kind);
	send_n(&e, 160 * NQ, 64);
	assert_int_equal(atomic_load(&rp(e.dev)->taken), 16 * NQ);
	for (unsigned k = 1; k <= 10; k++) {
		mqtx_clock_advance_to(e.clock, T0 + k * COMPLETE_NS);
		assert_int_equal(ring_done(&e), 16 * NQ * k);
	}
	assert_int_equal(atomic_load(&rp(e.dev)->taken), 160 * NQ);
	assert_int_equal(conserved(&e), 0);
	assert_int_equal(atomic_load(&rp(e.dev)->bad_order), 0);
	env_free(&e, true);
}

static void test_wake_pfifo_real(void **state)
{
	(void)state;
	wake_real("pfifo", 16, 0);
}

static void test_wake_codel_real(void **state)
{
	(void)state;
	wake_real("codel", 16, 0);
}

static void test_wake_fq_codel_real(void **state)
{
	(void)state;
	wake_real("fq_codel", 16, 0);
}

static void test_wake_pfifo_virtual(void **state)
{
	(void)state;
	wake_virtual("pfifo");
}

static void test_wake_codel_virtual(void **state)
{
	(void)state;
	wake_virtual("codel");
}

static void test_wake_fq_codel_virtual(void **state)
{
	(void)state;
	wake_virtual("fq_codel");
}

/* BQL: a ring large enough that the byte limit, not the ring, stops the queue; the
 * completion's mqtx_txq_completed() is what wakes it. */
static void test_bql_wake_real(void **state)
{
	(void)state;
	wake_real("pfifo", RING_MAX, MQTX_DEV_F_BQL);
}

static void test_bql_wake_virtual(void **state)
{
	struct env e;
	unsigned rounds = 0;

	(void)state;
	env_make(&e, NULL, RING_MAX, true, MQTX_DEV_F_BQL, NULL);
	mq_with(&e, "pfifo");
	send_n(&e, 2000, 64);
	/* The limit starts below one frame, so the first burst is one frame per queue. */
	assert_int_equal(atomic_load(&rp(e.dev)->taken), NQ);
	while (ring_done(&e) < 2000 && rounds++ < 1000)
		mqtx_clock_advance(e.clock, COMPLETE_NS);
	assert_int_equal(ring_done(&e), 2000);
	assert_true(atomic_load(&rp(e.dev)->stack_xoff) > 0);
	assert_int_equal(conserved(&e), 0);
	assert_int_equal(atomic_load(&rp(e.dev)->bad_order), 0);
	env_free(&e, true);
}

/* ---- a driver that refuses without stopping, longer than a section's rounds ---- */

static void test_busy_driver_real(void **state)
{
	struct env e;

	(void)state;
	env_make(&e, NULL, 16, false, 0, NULL);
	atomic_store(&rp(e.dev)->busy_left, 5000);
	send_n(&e, 12, 64);
	wait_drained(&e, ring_done);
	assert_int_equal(atomic_load(&rp(e.dev)->busy_left), 0);
	assert_int_equal(ring_done(&e), 12);
	assert_int_equal(atomic_load(&rp(e.dev)->bad_order), 0);
	env_free(&e, true);
}

/* ---- the sim NIC: completion rounds on its own thread or timer ---- */

static void test_sim_real(void **state)
{
	struct mqtx_sim_cfg sim = { .ring = 64, .rate_bps = 100000000 };
	struct env e;

	(void)state;
	env_make(&e, &mqtx_sim_ops, 0, false, MQTX_DEV_F_BQL, &sim);
	mq_with(&e, "fq_codel");
	send_n(&e, 3000, 64);
	wait_drained(&e, sim_done);
	env_free(&e, false);
}

/* 100 Mbit/s: a 64-byte frame holds the wire (64 + 24) * 8 bits = 7040 ns. The ring never
 * runs dry while the queue has more, so queue i's 250th frame ends at exactly 250 * 7040 ns. */
static void test_sim_virtual(void **state)
{
	struct mqtx_sim_cfg sim = { .ring = 64, .rate_bps = 100000000 };
	struct env e;

	(void)state;
	env_make(&e, &mqtx_sim_ops, 0, true, 0, &sim);
	mq_with(&e, "fq_codel");
	send_n(&e, 250 * NQ, 64);
	mqtx_clock_advance_to(e.clock, T0 + 250 * 7040 - 1);
	assert_int_equal(sim_done(&e), 249 * NQ);
	mqtx_clock_advance_to(e.clock, T0 + 250 * 7040);
	assert_int_equal(sim_done(&e), 250 * NQ);
	assert_int_equal(conserved(&e), 0);
	env_free(&e, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tbf_root_real),
		cmocka_unit_test(test_tbf_mq_real),
		cmocka_unit_test(test_tbf_root_virtual),
		cmocka_unit_test(test_tbf_mq_virtual),
		cmocka_unit_test(test_tbf_watchdog_during_driver_call),
		cmocka_unit_test(test_wake_pfifo_real),
		cmocka_unit_test(test_wake_codel_real),
		cmocka_unit_test(test_wake_fq_codel_real),
		cmocka_unit_test(test_wake_pfifo_virtual),
		cmocka_unit_test(test_wake_codel_virtual),
		cmocka_unit_test(test_wake_fq_codel_virtual),
		cmocka_unit_test(test_bql_wake_real),
		cmocka_unit_test(test_bql_wake_virtual),
		cmocka_unit_test(test_busy_driver_real),
		cmocka_unit_test(test_sim_real),
		cmocka_unit_test(test_sim_virtual),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
