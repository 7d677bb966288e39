// SPDX-License-Identifier: MIT
/* taprio in virtual time: the gates over two cycles, a frame that cannot finish before its gate
 * closes, the entry's byte budget, the link speed from the device's rate (10 Mbit/s without
 * one), every gate open before the start, the refusals, options and dump, live replace. */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <mqtx/ctl.h>
#include <mqtx/sim.h>

#include "helpers.h"
#include "test_qdisc_util.h"

#define US 1000ull
#define MS 1000000ull
#define T0 1000000000ull /* tq_setup's clock start */

/* t->dev replaced by a 4-queue device: null (no link rate) or sim at @rate_bps. */
static void tp_setup(struct tq *t, uint64_t rate_bps)
{
	struct mqtx_dev_cfg dc = { .name = "tp0", .ops = &mqtx_null_ops, .num_txq = 4 };
	struct mqtx_sim_cfg sc = { .rate_bps = rate_bps };

	tq_setup(t, 1000, 1500);
	mqtx_dev_destroy(t->dev);
	dc.clock = t->clock;
	if (rate_bps)
		assert_int_equal(mqtx_sim_dev_create(&dc, &sc, &t->dev), 0);
	else
		assert_int_equal(mqtx_dev_create(&dc, &t->dev), 0);
}

/* Create t->q with the config lock held, as the tool does (taprio reads the link's rate). */
static int tp_create(struct tq *t, const char *opts)
{
	int err;

	mqtx_dev_config_lock(t->dev);
	err = tq_create(t, &mqtx__taprio_qdisc_ops, opts);
	mqtx_dev_config_unlock(t->dev);
	return err;
}

/* A frame of traffic class @prio (map below: priority 1 is class 1, the others class 0) on
 * TX queue @txq, tagged @user. */
static struct mqtx_pkt *tp_pkt(struct tq *t, uint32_t len, uint32_t prio, uint16_t txq,
			       uint64_t user)
{
	struct mqtx_pkt *p = tq_udp4(t, len, 0x0a000001 + (uint32_t)user, 2, 1000, 80, 0);

	p->priority = prio;
	p->queue_mapping = txq;
	p->flags |= MQTX_PKT_F_QMAP_SET;
	p->user = user;
	return p;
}

/* Every packet handed in is sent, dropped (counted on its TX queue) or still queued. */
static void tp_check(struct tq *t, uint64_t handed)
{
	struct mqtx_txq_stats st;
	uint64_t drops = 0;

	for (uint32_t i = 0; i < 4; i++) {
		mqtx_txq_get_stats(mqtx_dev_txq(t->dev, i), &st);
		drops += mqtx_txq_stats_drops(&st);
	}
	assert_int_equal(t->accepted + t->refused, handed);
	assert_int_equal(t->sent + drops + t->q->qlen, handed);
	assert_int_equal(t->q->drops, drops);
	assert_int_equal(mqtx_pool_in_use(t->pool), t->q->qlen);
}

#define TP_OPTS                                                                             \
	"num_tc 2 map 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 queues 2@0 2@2 base-time 1001000000 " \
	"sched-entry S 01 1000000 sched-entry S 02 1000000 clockid CLOCK_TAI"

/*
 * Class 0 open for 1 ms, then class 1 for 1 ms: a 2 ms cycle from T0+1ms. Without a link rate
 * the link is 10 Mbit/s, 0.8 us a byte: a 1000-byte frame takes 800 us and an entry's 1 ms
 * budget is 1250 bytes. Before the start every gate is open. At T0+1ms class 0's B leaves and
 * C would overrun the budget (1250 - 1000 - 1000 < 0): it waits for the next cycle; class 1's
 * D waits for its gate at T0+2ms, E (over D's budget) for T0+4ms; C leaves at T0+3ms.
 */
static void test_gates_two_cycles(void **state)
{
	struct tq t;

	(void)state;
	tp_setup(&t, 0);
	assert_int_equal(tp_create(&t, TP_OPTS), 0);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 1 * MS);
	tq_enq(&t, tp_pkt(&t, 1000, 1, 2, 0));
	assert_int_equal(tq_deq(&t), 0); /* not started: every gate open */
	tq_enq(&t, tp_pkt(&t, 1000, 0, 0, 1));
	tq_enq(&t, tp_pkt(&t, 1000, 0, 0, 2));
	tq_enq(&t, tp_pkt(&t, 1000, 1, 2, 3));
	tq_enq(&t, tp_pkt(&t, 1000, 1, 2, 4));
	mqtx_clock_advance_to(t.clock, T0 + 1 * MS);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 2 * MS);
	mqtx_clock_advance_to(t.clock, T0 + 2 * MS - 1);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 2 * MS);
	assert_int_equal(tq_deq(&t), 3);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 3 * MS); /* the second cycle */
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 4 * MS);
	assert_int_equal(tq_deq(&t), 4);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 5 * MS);
	tp_check(&t, 5);
	tq_teardown(&t);
}

/*
 * At T0+1.3ms, 0.7 ms before class 0's gate closes: a 1000-byte frame (800 us at 10 Mbit/s)
 * cannot finish in time and waits for the next cycle (T0+3ms), while a 200-byte one (160 us)
 * on the class's other queue goes at once. At 100 Mbit/s (a sim device's rate, 80 ns a byte)
 * the 1000-byte frame takes 80 us and goes at once too.
 */
static void test_frame_waits_for_room(void **state)
{
	struct tq t;

	(void)state;
	tp_setup(&t, 0);
	assert_int_equal(tp_create(&t, TP_OPTS), 0);
	mqtx_clock_advance_to(t.clock, T0 + 1300 * US);
	tq_enq(&t, tp_pkt(&t, 1000, 0, 0, 1));
	tq_enq(&t, tp_pkt(&t, 200, 0, 1, 2));
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 2 * MS);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 3 * MS);
	assert_int_equal(tq_deq(&t), 1);
	tp_check(&t, 2);
	tq_teardown(&t);

	tp_setup(&t, 100000000);
	assert_int_equal(tp_create(&t, TP_OPTS), 0);
	mqtx_clock_advance_to(t.clock, T0 + 1300 * US);
	tq_enq(&t, tp_pkt(&t, 1000, 0, 0, 1));
	assert_int_equal(tq_deq(&t), 1);
	tp_check(&t, 1);
	tq_teardown(&t);
}

/*
 * A change of a running schedule: the new one (class 0 and 1 open, 1 ms, base T0+5ms) takes
 * over at the end of the entry at which it would start (should_change_schedules()): A's entry
 * starting at T0+4ms would end at T0+5ms, its base, so B's first entry runs from T0+4ms to its
 * own end at T0+6ms. A class-0 frame that A would hold until T0+5ms leaves at T0+4ms.
 */
static void test_schedule_change(void **state)
{
	struct tq t;

	(void)state;
	tp_setup(&t, 0);
	assert_int_equal(tp_create(&t, TP_OPTS), 0);
	mqtx_clock_advance_to(t.clock, T0 + 1500 * US);
	assert_int_equal(tq_change(&t, "base-time 1005000000 sched-entry S 03 1000000 "
				       "clockid CLOCK_TAI"),
			 0);
	assert_true(strstr(tq_dump(&t), "interval 1000000\n\tbase-time 1005000000"));
	mqtx_clock_advance_to(t.clock, T0 + 4 * MS - 1);
	tq_enq(&t, tp_pkt(&t, 1000, 0, 0, 1));
	assert_int_equal(tq_deq(&t), -1); /* A: class 1's entry */
	mqtx_clock_advance_to(t.clock, T0 + 4 * MS);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 6 * MS);
	assert_true(strstr(tq_dump(&t), "\tbase-time 1005000000 cycle-time 1000000 "
					"cycle-time-extension 0\n\tindex 0 cmd S gatemask 0x3"));
	assert_null(strstr(tq_dump(&t), "gatemask 0x2"));
	/* the traffic mapping of a running schedule stays */
	assert_int_equal(tq_change(&t, "num_tc 1 queues 4@0 sched-entry S 01 1000000 "
				       "clockid CLOCK_TAI"),
			 -EINVAL);
	assert_string_equal(t.err, "Changing the traffic mapping of a running schedule is not "
				   "supported");
	tp_check(&t, 1);
	tq_teardown(&t);
}

/* A frame no gate can ever carry (class 1 is open 1 ms: 1250 bytes at 10 Mbit/s, an SDU of
 * 1236) is dropped once the schedule runs; max-sdu lowers it further. */
static void test_max_sdu(void **state)
{
	struct tq t;

	(void)state;
	tp_setup(&t, 0);
	assert_int_equal(tp_create(&t, TP_OPTS " max-sdu 0 500"), 0);
	mqtx_clock_advance_to(t.clock, T0 + 1 * MS);
	assert_int_equal(tq_enq(&t, tp_pkt(&t, 1251, 0, 0, 1)), MQTX_XMIT_DROP);
	assert_int_equal(tq_enq(&t, tp_pkt(&t, 1250, 0, 0, 2)), MQTX_XMIT_SUCCESS);
	assert_int_equal(tq_enq(&t, tp_pkt(&t, 515, 1, 2, 3)), MQTX_XMIT_DROP);
	assert_int_equal(tq_enq(&t, tp_pkt(&t, 514, 1, 2, 4)), MQTX_XMIT_SUCCESS);
	assert_true(strstr(tq_dump(&t), "max-sdu 0 500"));
	tp_check(&t, 4);
	tq_teardown(&t);
}

static void test_refusals(void **state)
{
	struct tq t;

	(void)state;
	tp_setup(&t, 0);
	assert_int_equal(tp_create(&t, TP_OPTS " flags 0x2"), -EINVAL);
	assert_string_equal(t.err, "Device does not support taprio offload");
	assert_int_equal(tp_create(&t, TP_OPTS " flags 0x1"), -EOPNOTSUPP);
	assert_true(strstr(t.err, "txtime-assist"));
	assert_int_equal(tp_create(&t, TP_OPTS " flags 0x3"), -EINVAL);
	assert_string_equal(t.err, "TXTIME_ASSIST and FULL_OFFLOAD are mutually exclusive");
	assert_int_equal(tp_create(&t, TP_OPTS " txtime-delay 500000"), -EINVAL);
	assert_int_equal(tp_create(&t, "num_tc 2 queues 1@0 1@1 sched-entry S 01 300 "
				       "sched-entry S 02 1700 clockid CLOCK_TAI"),
			 -EINVAL);
	assert_string_equal(t.err, "Invalid interval for schedule entry");
	assert_int_equal(tp_create(&t, "num_tc 2 queues 1@0 1@1 sched-entry S 01 200000 "
				       "sched-entry S 02 200000 cycle-time 100 clockid CLOCK_TAI"),
			 -EINVAL);
	assert_string_equal(t.err, "'cycle_time' is too small");
	assert_int_equal(tp_create(&t, "num_tc 2 queues 1@0 1@1 sched-entry S 01 200000"), -EINVAL);
	assert_string_equal(t.err, "Specifying a 'clockid' is mandatory");
	assert_int_equal(tp_create(&t, "sched-entry S 01 200000 clockid CLOCK_TAI"), -EINVAL);
	assert_string_equal(t.err, "'mqprio' configuration is necessary");
	assert_int_equal(tp_create(&t, "num_tc 2 queues 1@0 1@1 clockid CLOCK_TAI"), -EINVAL);
	assert_string_equal(t.err, "There should be at least one entry in the schedule");
	assert_int_equal(tp_create(&t, "num_tc 2 queues 1@0 1@1 sched-entry X 01 200000"), -EINVAL);
	assert_int_equal(tp_create(&t, "clockid CLOCK_FOO"), -EINVAL);
	assert_int_equal(tp_create(&t, "sched-entry S 01"), MQTX_TC_EFATAL);
	assert_null(t.q);
	tq_teardown(&t);

	/* one TX queue */
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tp_create(&t, TP_OPTS), -EINVAL);
	assert_string_equal(t.err, "sch_taprio: Multi-queue device is required");
	tq_teardown(&t);
}

static void test_dump(void **state)
{
	struct tq t;

	(void)state;
	tp_setup(&t, 0);
	assert_int_equal(tp_create(&t, TP_OPTS), 0);
	/* before the start, only the admin schedule: the operational one shows zeros; a tab,
	 * not a blank, before each schedule's times (tc's "\tbase-time") */
	assert_string_equal(tq_dump(&t),
			    "tc 2 map 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
			    "queues offset 0 count 2 offset 2 count 2\n"
			    "clockid TAI\tbase-time 0 cycle-time 0 cycle-time-extension 0"
			    "\tbase-time 1001000000 cycle-time 2000000 "
			    "cycle-time-extension 0\n"
			    "\tindex 0 cmd S gatemask 0x1 interval 1000000\n"
			    "\tindex 1 cmd S gatemask 0x2 interval 1000000\n");
	mqtx_clock_advance_to(t.clock, T0 + 1 * MS);
	/* running: the operational schedule, then every class's max-sdu and fp (tc 6.x) */
	assert_string_equal(tq_dump(&t), "tc 2 map 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
					 "queues offset 0 count 2 offset 2 count 2\n"
					 "clockid TAI\tbase-time 1001000000 cycle-time 2000000 "
					 "cycle-time-extension 0\n"
					 "\tindex 0 cmd S gatemask 0x1 interval 1000000\n"
					 "\tindex 1 cmd S gatemask 0x2 interval 1000000\n"
					 "max-sdu 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
					 "fp E E E E E E E E E E E E E E E E\n");
	assert_string_equal(
		tq_json(&t),
		"\"tc\":2,\"map\":[0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
		"\"queues\":[{\"offset\":0,\"count\":2},{\"offset\":2,\"count\":2}],"
		"\"clockid\":\"TAI\",\"base_time\":1001000000,\"cycle_time\":2000000,"
		"\"cycle_time_extension\":0,\"schedule\":["
		"{\"index\":0,\"cmd\":\"S\",\"gatemask\":\"0x1\",\"interval\":1000000},"
		"{\"index\":1,\"cmd\":\"S\",\"gatemask\":\"0x2\",\"interval\":1000000}],"
		"\"max-sdu\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
		"\"fp\":[\"E\",\"E\",\"E\",\"E\",\"E\",\"E\",\"E\",\"E\",\"E\",\"E\","
		"\"E\",\"E\",\"E\",\"E\",\"E\",\"E\"]");
	tq_teardown(&t);
}

/* Replacing a taprio that holds frames behind closed gates moves them all, each queue's in
 * order, into the new root. */
static void test_replace_moves_backlog(void **state)
{
	struct mqtx_qdisc *qs[4], *old[4] = { NULL }, *pf;
	struct mqtx_txq_stats st;
	uint64_t pk, by, drops = 0;
	struct tq t;

	(void)state;
	tp_setup(&t, 0);
	assert_int_equal(tp_create(&t, TP_OPTS), 0);
	for (int i = 0; i < 4; i++)
		qs[i] = t.q;
	mqtx_dev_config_lock(t.dev);
	mqtx_dev_graft_all(t.dev, qs, old);
	mqtx_dev_config_unlock(t.dev);
	assert_int_equal(mqtx_dev_open(t.dev), 0);
	mqtx_clock_advance_to(t.clock, T0 + 1 * MS); /* class 0 open: class 1 waits */
	for (int i = 0; i < 3; i++)
		mqtx_dev_xmit(t.dev, tp_pkt(&t, 100, 1, 2, (uint64_t)i));
	mqtx_null_counts(t.dev, &pk, &by);
	assert_int_equal(pk, 0);
	assert_int_equal(t.q->qlen, 3);
	assert_int_equal(mqtx_qdisc_create(t.dev, mqtx_dev_txq(t.dev, 0), &mqtx__pfifo_qdisc_ops,
					   0x20000, NULL, NULL, &pf),
			 0);
	for (int i = 0; i < 4; i++)
		qs[i] = pf;
	mqtx_dev_config_lock(t.dev);
	mqtx_dev_graft_all(t.dev, qs, old);
	mqtx_dev_config_unlock(t.dev);
	for (int i = 0; i < 4; i++)
		mqtx_qdisc_destroy(old[i]);
	mqtx_tx_action();
	mqtx_null_counts(t.dev, &pk, &by);
	assert_int_equal(pk, 3);
	for (uint32_t i = 0; i < 4; i++) {
		mqtx_txq_get_stats(mqtx_dev_txq(t.dev, i), &st);
		drops += mqtx_txq_stats_drops(&st);
	}
	assert_int_equal(drops, 0);
	mqtx_dev_close(t.dev);
	t.q = NULL;
	tq_teardown(&t);
}

/* Real time, threads: two senders on a 4-queue null device while the root goes from taprio
 * (each class gated half of each 2 ms cycle: 1250 bytes an entry at 10 Mbit/s, so a timer that
 * fires late still leaves room) to mq and back under traffic. Every packet ends
 * sent, dropped with a reason or queued, and the queues empty once traffic stops. */
struct mt {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	atomic_ullong sent;
	atomic_bool stop;
};

struct mt_thread {
	struct mt *m;
	unsigned id;
};

static void *mt_sender(void *arg)
{
	struct mt *m = ((struct mt_thread *)arg)->m;
	unsigned id = ((struct mt_thread *)arg)->id;

	for (uint32_t i = 0; !atomic_load(&m->stop); i++) {
		struct mqtx_pkt *p = test_udp_pkt(m->pool, 0x0a000000 + (i & 63), 1000 + id, 80, 0);

		if (!p) {
			sched_yield();
			continue;
		}
		p->priority = i & 1;
		atomic_fetch_add(&m->sent, 1);
		mqtx_dev_xmit(m->dev, p);
	}
	return NULL;
}

static void test_threads_and_replace(void **state)
{
	static const char *const roots[] = {
		"qdisc replace dev mt0 root handle 1: taprio num_tc 2 map 0 1 queues 2@0 2@2 "
		"sched-entry S 01 1000000 sched-entry S 02 1000000 clockid CLOCK_TAI",
		"qdisc replace dev mt0 root handle 2: mq",
	};
	struct mqtx_dev_cfg dc = { .name = "mt0", .ops = &mqtx_null_ops, .num_txq = 4 };
	struct mqtx_pool_cfg pc = { .count = 4096, .data_room = 256 };
	struct mt m = { 0 };
	struct mqtx_dev_stats st;
	struct timespec t0, t;
	struct mt_thread args[2] = { { &m, 0 }, { &m, 1 } };
	struct mqtx_ctl *ctl;
	pthread_t th[2];
	struct mqtx_buf o, e;

	(void)state;
	assert_int_equal(mqtx_pool_create(&pc, &m.pool), 0);
	assert_int_equal(mqtx_dev_create(&dc, &m.dev), 0);
	assert_int_equal(mqtx_dev_open(m.dev), 0);
	assert_int_equal(mqtx_ctl_new(&ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(ctl, m.dev), 0);
	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	assert_int_equal(mqtx_ctl_exec_line(ctl, roots[0], 0, &o, &e), MQTX_TC_EXIT_OK);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, mt_sender, &args[i]), 0);
	for (int i = 1; i <= 20; i++) {
		unsigned long long at = atomic_load(&m.sent);

		/* under traffic: each replace waits for some packets sent since the last */
		while (atomic_load(&m.sent) < at + 100)
			sched_yield();
		assert_int_equal(mqtx_ctl_exec_line(ctl, roots[i & 1], 0, &o, &e), MQTX_TC_EXIT_OK);
	}
	atomic_store(&m.stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	/* the last root is taprio: its timer opens the gates; wait for the queues, bounded */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!mqtx_dev_all_tx_empty(m.dev)) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		assert_true(t.tv_sec - t0.tv_sec < 30);
		sched_yield();
	}
	mqtx_dev_get_stats(m.dev, &st);
	assert_true(st.xmit > 0);
	assert_int_equal(st.xmit, atomic_load(&m.sent));
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st) + st.txq.qlen);
	assert_int_equal(st.txq.qlen, 0);
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	mqtx_ctl_free(ctl); /* destroys the device */
	assert_int_equal(mqtx_pool_in_use(m.pool), 0);
	mqtx_pool_destroy(m.pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gates_two_cycles),
		cmocka_unit_test(test_frame_waits_for_room),
		cmocka_unit_test(test_schedule_change),
		cmocka_unit_test(test_max_sdu),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_replace_moves_backlog),
		cmocka_unit_test(test_threads_and_replace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
