// SPDX-License-Identifier: MIT
/* htb in virtual time: the token schedule of one class and of a child borrowing from its
 * parent, worked out by hand from Linux's htb_dequeue(), htb_charge_class() and
 * htb_do_events(); classification, the direct queue, class changes, deletes, and
 * conservation with two threads. */
#include <errno.h>
#include <inttypes.h>

#include <mqtx/cls.h>

#include "sched/qtree.h"
#include "qdisc_mt.h"
#include "test_qdisc_util.h"

#define US 1000ull
#define MS 1000000ull
#define T0 1000000000ull /* tq_setup's clock start */

/* Make (or change) class 1:@minor below @parent (MQTX_H_ROOT or a class id) with tc's words;
 * the warning Linux would give on success, if any, in @warn. */
static int htb_cls(struct tq *t, uint32_t minor, uint32_t parent, const char *opts, char *warn)
{
	const struct mqtx_class_ops *cl = t->q->ops->cl_ops;
	struct mqtx_extack ack = { "" };
	char buf[256], *argv[32];
	int argc = 0, err;
	void *opt = calloc(1, cl->opt_size);

	assert_non_null(opt);
	snprintf(buf, sizeof(buf), "%s", opts);
	for (char *s = strtok(buf, " "); s && argc < 32; s = strtok(NULL, " "))
		argv[argc++] = s;
	err = cl->parse(argc, argv, opt, &ack);
	if (!err)
		err = cl->change(t->q, minor, parent, !cl->find(t->q, minor), opt, &ack);
	if (warn)
		snprintf(warn, 200, "%s", ack.msg);
	free(opt);
	return err;
}

static struct mqtx_pkt *pkt_to(struct tq *t, uint32_t len, uint32_t priority, uint64_t user)
{
	struct mqtx_pkt *p = tq_pkt(t, len, user);

	p->priority = priority;
	return p;
}

/* Dequeue what may leave now, then move to each watchdog expiry up to @until, recording when
 * each packet left (ns after T0) in @when; returns how many left. */
static unsigned run(struct tq *t, uint64_t until, uint64_t *when, unsigned max)
{
	unsigned n = 0;

	for (;;) {
		uint64_t next;

		while (n < max && tq_deq(t) >= 0)
			when[n++] = mqtx_clock_now(t->clock) - T0;
		next = mqtx_clock_next_timer(t->clock);
		if (!t->q->qlen || next == UINT64_MAX || next > until)
			return n;
		mqtx_clock_advance_to(t->clock, next);
	}
}

static struct htb_class_view {
	uint64_t lends, borrows, tokens, overlimits;
} view(struct tq *t, uint32_t minor)
{
	struct htb_class_view v = { 0 };
	const char *x = tq_xstats(t, minor, true);

	assert_int_equal(sscanf(strstr(x, "\"lended\""), "\"lended\":%" SCNu64, &v.lends), 1);
	assert_int_equal(sscanf(strstr(x, "\"borrowed\""), "\"borrowed\":%" SCNu64, &v.borrows), 1);
	return v;
}

/*
 * One class, rate 8mbit = 1e6 B/s: tc's burst is rate/HZ + 1600 = 1600 B, sent as 25000
 * ticks, a 1.6 ms bucket (ceil the same). A 1000-byte packet costs 1 ms. Five packets at T0:
 *   p0: tokens 1.6 - 1 = 0.6 ms, still CAN_SEND;  p1: 0.6 - 1 = -0.4: CANT_SEND, the class
 *   waits on its level's event queue until T0+0.4 ms (an overlimit), the watchdog with it.
 *   T0+0.4: the event makes it CAN_SEND (0 tokens), p2 goes: -1 ms, waits until T0+1.4;
 *   p3 at T0+1.4, p4 at T0+2.4: one per ms, 8mbit. Four overlimits, five lends.
 */
static void test_one_class_schedule(void **state)
{
	uint64_t when[8];
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__htb_qdisc_ops, "default 1"), 0);
	assert_int_equal(htb_cls(&t, 1, MQTX_H_ROOT, "rate 8mbit", NULL), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i)), MQTX_XMIT_SUCCESS);
	assert_int_equal(run(&t, T0, when, 8), 2);
	assert_int_equal(when[0], 0);
	assert_int_equal(when[1], 0);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 400 * US); /* the watchdog */
	assert_int_equal(run(&t, T0 + 10 * MS, when + 2, 6), 3);
	assert_int_equal(when[2], 400 * US);
	assert_int_equal(when[3], 1400 * US);
	assert_int_equal(when[4], 2400 * US);
	assert_int_equal(t.q->overlimits, 4);
	assert_int_equal(view(&t, 1).lends, 5);
	assert_int_equal(view(&t, 1).borrows, 0);
	/* -1 ms of tokens in 64 ns ticks, as tc shows them */
	assert_non_null(strstr(tq_xstats(&t, 1, false), " tokens: -15625 ctokens: -15625\n"));
	tq_check_conservation(&t, 5);
	tq_teardown(&t);
}

/*
 * Parent 1:1 rate = ceil 8mbit (1e6 B/s, 1.6 ms buckets); children 1:10 and 1:20 rate 4mbit
 * (a 3.2 ms bucket) ceil 8mbit (1.6 ms). Only 1:10 sends, 1000-byte packets (2 ms at its rate,
 * 1 ms at ceil and at the parent's rate):
 *   T0: p0 at level 0 (tokens 1.2, ctokens 0.6; parent 0.6, 0.6); p1 at level 0: ctokens
 *     -0.4 -> CANT_SEND until T0+0.4; the parent likewise.
 *   T0+0.4: 1:10 has ctokens again but tokens -0.4: MAY_BORROW, in its parent's feed; the
 *     parent's event makes it CAN_SEND: p2 leaves at level 7, borrowed (ctokens -1 ms).
 *   T0+0.8: a stale event (Linux's near_ev_cache), nothing leaves. T0+1.4: 1:10's own tokens
 *     are back (0.6): p3 at level 0; T0+2.4: p4 borrowed; T0+3.4: p5 at level 0.
 * The child sends at its ceil, 8mbit: half on its own rate, half lent by the parent.
 */
static void test_borrowing(void **state)
{
	uint64_t when[8];
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__htb_qdisc_ops, "r2q 10"), 0);
	assert_int_equal(htb_cls(&t, 1, MQTX_H_ROOT, "rate 8mbit", NULL), 0);
	assert_int_equal(htb_cls(&t, 0x10, 0x10001, "rate 4mbit ceil 8mbit", NULL), 0);
	assert_int_equal(htb_cls(&t, 0x20, 0x10001, "rate 4mbit ceil 8mbit", NULL), 0);
	for (int i = 0; i < 6; i++)
		tq_enq(&t, pkt_to(&t, 1000, 0x10010, (uint64_t)i));
	assert_int_equal(run(&t, T0 + 600 * US, when, 8), 3);
	assert_int_equal(when[0], 0);
	assert_int_equal(when[1], 0);
	assert_int_equal(when[2], 400 * US);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 800 * US);
	assert_int_equal(run(&t, T0 + 10 * MS, when + 3, 5), 3);
	assert_int_equal(when[3], 1400 * US);
	assert_int_equal(when[4], 2400 * US);
	assert_int_equal(when[5], 3400 * US);
	assert_int_equal(view(&t, 0x10).lends, 4);
	assert_int_equal(view(&t, 0x10).borrows, 2);
	assert_int_equal(view(&t, 1).lends, 2);
	assert_int_equal(view(&t, 0x20).lends, 0);
	tq_check_conservation(&t, 6);
	tq_teardown(&t);
}

/* Both children busy: each gets its own rate; the parent has nothing left to lend. Over one
 * virtual second of 1000-byte packets: 500 each, give or take the buckets. */
static void test_two_children_share(void **state)
{
	unsigned n, sent[2] = { 0, 0 };
	struct tq t;

	(void)state;
	tq_setup(&t, 2000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__htb_qdisc_ops, "r2q 10"), 0);
	assert_int_equal(htb_cls(&t, 1, MQTX_H_ROOT, "rate 8mbit", NULL), 0);
	assert_int_equal(htb_cls(&t, 0x10, 0x10001, "rate 4mbit ceil 8mbit", NULL), 0);
	assert_int_equal(htb_cls(&t, 0x20, 0x10001, "rate 4mbit ceil 8mbit", NULL), 0);
	for (int i = 0; i < 600; i++) {
		tq_enq(&t, pkt_to(&t, 1000, 0x10010, 0));
		tq_enq(&t, pkt_to(&t, 1000, 0x10020, 1));
	}
	for (n = 0; n < 1200; n++) {
		struct mqtx_pkt *p = t.q->ops->dequeue(t.q);

		if (!p) {
			if (mqtx_clock_next_timer(t.clock) > T0 + 1000 * MS)
				break;
			mqtx_clock_advance_to(t.clock, mqtx_clock_next_timer(t.clock));
			n--;
			continue;
		}
		sent[p->user]++;
		t.sent++;
		mqtx_pkt_free(p);
	}
	assert_in_range(sent[0], 499, 503);
	assert_in_range(sent[1], 499, 503);
	tq_check_conservation(&t, 1200);
	tq_teardown(&t);
}

/* htb_classify(): X:0 is the direct queue, a priority naming a leaf takes it, an inner class
 * or nothing goes to the default, a missing default to the direct queue, which sends first
 * and holds direct_qlen packets. */
static void test_classify_and_direct(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__htb_qdisc_ops, "default 20 direct_qlen 2"), 0);
	assert_int_equal(htb_cls(&t, 1, MQTX_H_ROOT, "rate 8mbit", NULL), 0);
	assert_int_equal(htb_cls(&t, 0x10, 0x10001, "rate 1mbit", NULL), 0);
	tq_enq(&t, pkt_to(&t, 100, 0x10010, 10)); /* the leaf */
	tq_enq(&t, pkt_to(&t, 100, 0x10001, 11)); /* an inner class: default 1:20, absent */
	tq_enq(&t, pkt_to(&t, 100, 0x10000, 12)); /* X:0 */
	assert_int_equal(tq_enq(&t, pkt_to(&t, 100, 7, 13)), MQTX_XMIT_DROP); /* direct full */
	assert_int_equal(tq_deq(&t), 11);
	assert_int_equal(tq_deq(&t), 12);
	assert_int_equal(tq_deq(&t), 10);
	assert_non_null(strstr(tq_dump(&t), "direct_packets_stat 2 direct_qlen 2"));
	/* a default that exists takes the unclassified */
	assert_int_equal(htb_cls(&t, 0x20, 0x10001, "rate 1mbit", NULL), 0);
	tq_enq(&t, pkt_to(&t, 100, 3, 14));
	assert_int_equal(t.q->qlen, 1);
	assert_int_equal(tq_deq(&t), 14);
	assert_non_null(strstr(tq_dump(&t), "direct_packets_stat 2"));
	tq_check_conservation(&t, 5);
	tq_teardown(&t);
}

/* Quantum from r2q with the kernel's clamps and warnings; prio capped at 7; a leaf turned
 * inner drops its queue; a parent may not go while it has children; its last child's
 * delete makes it a leaf again. */
static void test_class_changes(void **state)
{
	const struct mqtx_class_ops *cl;
	struct mqtx_extack ack = { "" };
	char warn[200], text[512], json[1024];
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__htb_qdisc_ops, "r2q 10"), 0);
	cl = t.q->ops->cl_ops;
	assert_int_equal(htb_cls(&t, 1, MQTX_H_ROOT, "rate 100gbit", warn), 0);
	assert_string_equal(warn, "sch_htb: quantum of class 10001 is big. Consider r2q change.");
	assert_int_equal(htb_cls(&t, 1, 0, "rate 1kbit prio 9", warn), 0);
	assert_string_equal(warn, "sch_htb: quantum of class 10001 is small. Consider r2q change.");
	assert_true(mqtx__class_dump_options(t.q, 1, MQTX_DUMP_F_DETAILS, text, sizeof(text), json,
					     sizeof(json)) > 0);
	assert_string_equal(text, "prio 7 quantum 1000 rate 1Kbit ceil 1Kbit linklayer ethernet "
				  "burst 1600b/1 mpu 0b cburst 1600b/1 mpu 0b level 0 ");
	tq_enq(&t, pkt_to(&t, 100, 0x10001, 1));
	assert_int_equal(htb_cls(&t, 2, 0x10001, "rate 1mbit", NULL), 0);
	assert_int_equal(t.q->qlen, 0); /* 1:1's queue went with its leaf */
	assert_null(cl->leaf(t.q, 1));
	assert_int_equal(cl->delete (t.q, 1, &ack), -EBUSY);
	assert_string_equal(ack.msg, "HTB class in use");
	assert_int_equal(cl->delete (t.q, 2, &ack), 0);
	assert_non_null(cl->leaf(t.q, 1));
	assert_false(cl->find(t.q, 2));
	assert_int_equal(htb_cls(&t, 3, 0x10001, "rate", NULL), MQTX_TC_EFATAL);
	assert_int_equal(htb_cls(&t, 3, 0x10001, "ceil 1mbit", warn), -EINVAL);
	assert_string_equal(warn, "\"rate\" is required.");
	tq_check_conservation(&t, 1);
	tq_teardown(&t);
}

/* A filter that names a class binds it (tcf_bind_filter()): the class may not go while one
 * does, whether the filter is on the qdisc or on another class; a shared block binds
 * nothing; once the filters are gone the class may go. */
static void test_bound_class(void **state)
{
	char *add[] = { "prio", "1", "matchall", "classid", "1:10" };
	char *del[] = { "prio", "1" };
	struct mqtx_extack ack = { "" };
	const struct mqtx_class_ops *cl;
	struct mqtx_tcf_block *qb, *cb, *shared;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__htb_qdisc_ops, ""), 0);
	cl = t.q->ops->cl_ops;
	assert_int_equal(htb_cls(&t, 1, MQTX_H_ROOT, "rate 10mbit", NULL), 0);
	assert_int_equal(htb_cls(&t, 0x10, 0x10001, "rate 1mbit", NULL), 0);
	qb = cl->tcf_block(t.q, 0, &ack);
	cb = cl->tcf_block(t.q, 1, &ack);
	assert_non_null(qb);
	assert_non_null(cb);
	assert_int_equal(mqtx_tcf_block_bound(qb, 0x10010), 0);
	assert_int_equal(mqtx_tcf_change(qb, MQTX_TCF_ADD, 5, add, &ack), 0);
	assert_int_equal(mqtx_tcf_block_bound(qb, 0x10010), 1);
	assert_int_equal(mqtx_tcf_block_bound(qb, 0x10001), 0);
	assert_int_equal(cl->delete (t.q, 0x10, &ack), -EBUSY);
	assert_string_equal(ack.msg, "HTB class in use");
	assert_true(cl->find(t.q, 0x10));
	assert_int_equal(mqtx_tcf_change(qb, MQTX_TCF_DELETE, 2, del, &ack), 0);
	assert_int_equal(mqtx_tcf_change(cb, MQTX_TCF_ADD, 5, add, &ack), 0);
	assert_int_equal(cl->delete (t.q, 0x10, &ack), -EBUSY);
	assert_int_equal(mqtx_tcf_change(cb, MQTX_TCF_DELETE, 2, del, &ack), 0);
	assert_int_equal(mqtx_tcf_block_get(77, &shared), 0);
	assert_int_equal(mqtx_tcf_change(shared, MQTX_TCF_ADD, 5, add, &ack), 0);
	assert_int_equal(mqtx_tcf_block_bound(shared, 0x10010), 0);
	mqtx_tcf_block_put(shared);
	assert_int_equal(cl->delete (t.q, 0x10, &ack), 0);
	assert_false(cl->find(t.q, 0x10));
	tq_teardown(&t);
}

/* Live replace: a leaf's packets held back by its tokens move into the qdisc grafted on the
 * class, and leave on the class's schedule (the root's replace under traffic is the stress
 * test's). */
static void test_replace_carries_backlog(void **state)
{
	uint64_t when[4];
	struct tq_ctl c;
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	tq_ctl_open(&t, &c);
	assert_int_equal(tq_ctl_run(&c, "qdisc add dev tq0 root handle 1: htb default 10"), 0);
	assert_int_equal(tq_ctl_run(&c, "class add dev tq0 parent 1: classid 1:10 htb rate 8kbit"),
			 0);
	tq_ctl_root(&t);
	for (int i = 0; i < 4; i++)
		tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i));
	/* a 1.6 s bucket: 1000 bytes (1 s) leave with tokens left, the next puts it in debt */
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(tq_ctl_run(&c, "qdisc replace dev tq0 parent 1:10 handle 20: bfifo"), 0);
	assert_int_equal(t.q->qlen, 2);
	assert_string_equal(t.q->ops->cl_ops->leaf(t.q, 0x10)->ops->id, "bfifo");
	/* the bfifo holds them and they leave on the class's schedule: 0.4 s, then 1 s apart */
	assert_int_equal(run(&t, T0 + 5000 * MS, when, 4), 2);
	assert_int_equal(when[0], 400 * MS);
	assert_int_equal(when[1], 1400 * MS);
	tq_check_conservation(&t, 4);
	tq_ctl_close(&t, &c);
}

/* The schedule of test_one_class_schedule through the device: the watchdog wakes the queue
 * exactly at each event and not a nanosecond before. Then htb is replaced at the root while
 * it holds packets: they go to the new qdisc and out, none lost. */
static void test_watchdog_and_root_replace(void **state)
{
	struct mqtx_txq_stats st;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__htb_qdisc_ops, "default 1"), 0);
	assert_int_equal(htb_cls(&t, 1, MQTX_H_ROOT, "rate 8mbit", NULL), 0);
	tq_attach(&t);
	for (int i = 0; i < 5; i++)
		mqtx_dev_xmit(t.dev, tq_pkt(&t, 1000, (uint64_t)i));
	assert_int_equal(tq_driver_sent(&t), 2);
	assert_int_equal(tq_at(&t, T0 + 400 * US - 1), 2);
	assert_int_equal(tq_at(&t, T0 + 400 * US), 3);
	assert_int_equal(tq_at(&t, T0 + 1400 * US - 1), 3);
	assert_int_equal(tq_at(&t, T0 + 1400 * US), 4);
	for (int i = 5; i < 8; i++)
		mqtx_dev_xmit(t.dev, tq_pkt(&t, 1000, (uint64_t)i));
	assert_int_equal(t.q->qlen, 4);
	assert_int_equal(tq_replace_by_pfifo(&t), 8);
	mqtx_txq_get_stats(mqtx_dev_txq(t.dev, 0), &st);
	assert_int_equal(mqtx_txq_stats_drops(&st), 0);
	mqtx_dev_close(t.dev);
	t.q = NULL; /* the device destroys it */
	tq_teardown(&t);
}

/* Two threads offer packets to two classes of different priorities and two take them. */
static void test_conservation_threads(void **state)
{
	static const uint32_t prios[] = { 0x10010, 0x10010, 0x10020 };
	struct tq t;

	(void)state;
	tq_setup(&t, 300, 1500);
	assert_int_equal(tq_create(&t, &mqtx__htb_qdisc_ops, "r2q 10"), 0);
	assert_int_equal(htb_cls(&t, 1, MQTX_H_ROOT, "rate 10gbit", NULL), 0);
	assert_int_equal(htb_cls(&t, 0x10, 0x10001, "rate 5gbit ceil 10gbit", NULL), 0);
	assert_int_equal(htb_cls(&t, 0x20, 0x10001, "rate 1gbit ceil 10gbit prio 1", NULL), 0);
	tq_mt_conservation(&t, prios, 3);
	tq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_class_schedule),
		cmocka_unit_test(test_borrowing),
		cmocka_unit_test(test_two_children_share),
		cmocka_unit_test(test_classify_and_direct),
		cmocka_unit_test(test_class_changes),
		cmocka_unit_test(test_bound_class),
		cmocka_unit_test(test_replace_carries_backlog),
		cmocka_unit_test(test_watchdog_and_root_replace),
		cmocka_unit_test(test_conservation_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
