// SPDX-License-Identifier: MIT
/* codel in virtual time: exact drop and mark times from Linux's fixed-point control law. */
#include <errno.h>

#include <mqtx/xstats.h>

#include "test_qdisc_util.h"

#define MS 1000000ull
#define T0 1000000000ull /* tq_setup's clock start: CoDel time T0 >> 10 = 976562 */

static struct mqtx_pkt *deq_at(struct tq *t, uint64_t ns)
{
	mqtx_clock_advance_to(t->clock, ns);
	return t->q->ops->dequeue(t->q);
}

static int64_t deq_user_at(struct tq *t, uint64_t ns)
{
	struct mqtx_pkt *p = deq_at(t, ns);
	int64_t u = p ? (int64_t)p->user : -1;

	if (p)
		t->sent++;
	mqtx_pkt_free(p);
	return u;
}

static uint64_t aqm_drops(struct tq *t)
{
	struct mqtx_txq_stats st;

	mqtx_txq_get_stats(mqtx_dev_txq(t->dev, 0), &st);
	return st.drops[MQTX_DROP_AQM];
}

/*
 * Derivation (CoDel units of 1024 ns; interval 97656, target 4882, mtu 1514). 30 packets of
 * 1000 bytes are stamped at T0 = 976562.
 *  T0+10ms  (986328): sojourn 9766 >= target, backlog 29000 > mtu: first_above_time :=
 *           986328 + 97656 = 1083984; p0 goes.
 *  T0+100ms (1074218): not yet past first_above_time; p1 goes.
 *  T0+200ms (1171875): past it: enter dropping; p2 dropped, count 1, rec_inv_sqrt 0xffff,
 *           drop_next = 1171875 + (97656 * 0xffff0000 >> 32) = 1171875 + 97654 = 1269529;
 *           p3 goes.
 *  1269528: before drop_next: p4 goes.
 *  1269529: count 2, Newton step 0xffff -> 0x8001; p5 dropped; drop_next += 97656 * 0x80010000
 *           >> 32 = 48829 -> 1318358; p6 goes.
 *  1318358: count 3, 0x8001 -> 0x9000; p7 dropped; drop_next += 54931 -> 1373289; p8 goes.
 *  1373289: count 4, 0x9000 -> 0x7ce0; p9 dropped; drop_next += 47635 -> 1420924; p10 goes.
 */
static void test_drop_schedule(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__codel_qdisc_ops, NULL), 0);
	for (int i = 0; i < 30; i++)
		assert_int_equal(tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i)), MQTX_XMIT_SUCCESS);
	assert_int_equal(deq_user_at(&t, T0 + 10 * MS), 0);
	assert_int_equal(deq_user_at(&t, T0 + 100 * MS), 1);
	assert_int_equal(aqm_drops(&t), 0);
	assert_int_equal(deq_user_at(&t, T0 + 200 * MS), 3);
	assert_int_equal(aqm_drops(&t), 1);
	assert_int_equal(deq_user_at(&t, 1269528ull << 10), 4);
	assert_int_equal(deq_user_at(&t, 1269529ull << 10), 6);
	assert_int_equal(aqm_drops(&t), 2);
	assert_int_equal(deq_user_at(&t, 1318358ull << 10), 8);
	assert_int_equal(aqm_drops(&t), 3);
	assert_int_equal(deq_user_at(&t, 1373289ull << 10), 10);
	assert_int_equal(aqm_drops(&t), 4);
	assert_int_equal(t.q->qlen, 19);
	assert_int_equal(t.q->backlog, 19000);
	tq_check_conservation(&t, 30);
	tq_teardown(&t);
}

/*
 * The statistics codel_dump_stats() reports, along the schedule above, and tc's rendering of
 * them (q_codel.c). Times are CoDel units turned into whole microseconds (x 1024 / 1000).
 */
static void test_xstats(void **state)
{
	struct mqtx_codel_xstats st;
	struct mqtx_qdisc *pf;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__codel_qdisc_ops, "limit 29"), 0);
	assert_string_equal(tq_xstats(&t, 0, false),
			    "  count 0 lastcount 0 ldelay 0us drop_next 0us\n"
			    "  maxpacket 0 ecn_mark 0 drop_overlimit 0");
	for (int i = 0; i < 30; i++)
		tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i));
	assert_int_equal(deq_user_at(&t, T0 + 10 * MS), 0);
	assert_int_equal(deq_user_at(&t, T0 + 100 * MS), 1);
	/* entering the dropping state at 1171875: p2 dropped, p3 out after 195313 units
	 * (200000 us); the next drop 97654 units (99997 us) away */
	assert_int_equal(deq_user_at(&t, T0 + 200 * MS), 3);
	assert_int_equal(mqtx_codel_get_xstats(t.q, &st), 0);
	assert_true(st.dropping);
	assert_int_equal(st.count, 1);
	assert_int_equal(st.lastcount, 1);
	assert_int_equal(st.ldelay_us, 200000);
	assert_int_equal(st.drop_next_us, 99997);
	assert_int_equal(st.maxpacket, 1000);
	assert_int_equal(st.drop_overlimit, 1);
	assert_string_equal(tq_xstats(&t, 0, false),
			    "  count 1 lastcount 1 ldelay 200ms dropping drop_next 100ms\n"
			    "  maxpacket 1000 ecn_mark 0 drop_overlimit 1");
	assert_string_equal(tq_xstats(&t, 0, true),
			    "\"count\":1,\"lastcount\":1,\"ldelay\":200000,\"dropping\":true,"
			    "\"drop_next\":99997,\"maxpacket\":1000,\"ecn_mark\":0,"
			    "\"drop_overlimit\":1");
	/* 1000 units past the next drop without a dequeue: overdue by 1024 us */
	mqtx_clock_advance_to(t.clock, (1269529ull + 1000) << 10);
	assert_int_equal(mqtx_codel_get_xstats(t.q, &st), 0);
	assert_int_equal(st.drop_next_us, -1024);
	assert_non_null(strstr(tq_xstats(&t, 0, false), " drop_next -1.02ms\n"));
	assert_non_null(strstr(tq_xstats(&t, 0, true), "\"drop_next\":-1024,"));
	/* the next dequeue drops p4 and sends p5: count 2 */
	assert_int_equal(deq_user_at(&t, (1269529ull + 1000) << 10), 5);
	assert_int_equal(mqtx_codel_get_xstats(t.q, &st), 0);
	assert_int_equal(st.count, 2);
	assert_int_equal(st.lastcount, 1);
	/* another kind is refused */
	assert_int_equal(mqtx_qdisc_create(t.dev, mqtx_dev_txq(t.dev, 0), &mqtx__pfifo_qdisc_ops, 0,
					   NULL, NULL, &pf),
			 0);
	assert_int_equal(mqtx_codel_get_xstats(pf, &st), -EINVAL);
	mqtx_qdisc_destroy(pf);
	tq_teardown(&t);
}

static void test_below_target_or_mtu_no_drop(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__codel_qdisc_ops, NULL), 0);
	for (int i = 0; i < 5; i++)
		tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i));
	/* sojourn 4 ms < target 5 ms: never above, however long we stay */
	for (int i = 0; i < 3; i++)
		assert_int_equal(deq_user_at(&t, T0 + 4 * MS), i);
	/* two left, long overdue, but once one is out the backlog (1000) is <= mtu */
	assert_int_equal(deq_user_at(&t, T0 + 300 * MS), 3);
	assert_int_equal(deq_user_at(&t, T0 + 500 * MS), 4);
	assert_int_equal(aqm_drops(&t), 0);
	assert_int_equal(deq_user_at(&t, T0 + 600 * MS), -1);
	tq_check_conservation(&t, 5);
	tq_teardown(&t);
}

/* With ecn the same schedule marks ECT packets CE instead of dropping them. */
static void test_ecn_marks(void **state)
{
	struct mqtx_pkt *p;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__codel_qdisc_ops, "ecn"), 0);
	assert_string_equal(tq_dump(&t), "limit 1000p target 5ms interval 100ms ecn");
	/* -j: microseconds as Linux reports them (5 ms is 4882 units of 1024 ns), ecn a bool */
	assert_string_equal(tq_json(&t),
			    "\"limit\":1000,\"target\":4999,\"interval\":99999,\"ecn\":true");
	for (int i = 0; i < 10; i++) {
		p = tq_udp4(&t, 1000, 0x0a000001, 0x0a000002, 1000, 2000, 0x02); /* ECT(0) */
		p->user = (uint64_t)i;
		tq_enq(&t, p);
	}
	mqtx_pkt_free(deq_at(&t, T0 + 10 * MS));
	mqtx_pkt_free(deq_at(&t, T0 + 100 * MS));
	p = deq_at(&t, T0 + 200 * MS); /* entering the dropping state: marked, not dropped */
	assert_int_equal(p->user, 2);
	assert_int_equal(p->data[15] & 3, 3);
	assert_true(tq_ip4_csum_ok(p));
	mqtx_pkt_free(p);
	p = deq_at(&t, 1269528ull << 10);
	assert_int_equal(p->data[15] & 3, 2); /* before drop_next: untouched */
	mqtx_pkt_free(p);
	p = deq_at(&t, 1269529ull << 10);
	assert_int_equal(p->user, 4);
	assert_int_equal(p->data[15] & 3, 3);
	assert_true(tq_ip4_csum_ok(p));
	mqtx_pkt_free(p);
	t.sent = 5;
	assert_int_equal(aqm_drops(&t), 0);
	tq_check_conservation(&t, 10);
	assert_non_null(strstr(tq_xstats(&t, 0, false), "  maxpacket 1000 ecn_mark 2 "));
	tq_teardown(&t);
}

/* ce_threshold marks any ECT packet whose sojourn exceeds it, ecn or not; Not-ECT stays. */
static void test_ce_threshold(void **state)
{
	struct mqtx_pkt *p;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__codel_qdisc_ops, "ce_threshold 1ms"), 0);
	/* 1 ms is 976 units: tc shows the 999 us the kernel reports back */
	assert_string_equal(tq_dump(&t),
			    "limit 1000p target 5ms ce_threshold 999us interval 100ms");
	assert_string_equal(
		tq_json(&t),
		"\"limit\":1000,\"target\":4999,\"ce_threshold\":999,\"interval\":99999");
	tq_enq(&t, tq_udp4(&t, 100, 1, 2, 3, 4, 0x01)); /* ECT(1) */
	tq_enq(&t, tq_udp4(&t, 100, 1, 2, 3, 4, 0x00)); /* Not-ECT */
	tq_enq(&t, tq_udp4(&t, 100, 1, 2, 3, 4, 0x01));
	p = deq_at(&t, T0 + MS / 2); /* 488 units: below */
	assert_int_equal(p->data[15] & 3, 1);
	mqtx_pkt_free(p);
	p = deq_at(&t, T0 + 2 * MS); /* 1953 units: above */
	assert_int_equal(p->data[15] & 3, 0);
	mqtx_pkt_free(p);
	p = deq_at(&t, T0 + 2 * MS);
	assert_int_equal(p->data[15] & 3, 3);
	assert_true(tq_ip4_csum_ok(p));
	mqtx_pkt_free(p);
	/* tc adds ce_mark once there is one */
	assert_string_equal(tq_xstats(&t, 0, false),
			    "  count 0 lastcount 0 ldelay 2ms drop_next 0us\n"
			    "  maxpacket 100 ecn_mark 0 drop_overlimit 0 ce_mark 1");
	tq_teardown(&t);
}

static void test_limit_change_dump(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__codel_qdisc_ops, "limit 5"), 0);
	for (int i = 0; i < 6; i++)
		tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i));
	assert_int_equal(t.refused, 1);
	/* peek keeps the head it dequeued; a lowered limit trims from the head */
	assert_int_equal(t.q->ops->peek(t.q)->user, 0);
	assert_int_equal(t.q->qlen, 5);
	assert_int_equal(tq_change(&t, "limit 2"), 0);
	assert_int_equal(t.q->qlen, 2);
	assert_int_equal(t.q->backlog, 200);
	assert_int_equal(tq_deq(&t), 3);
	tq_check_conservation(&t, 6);
	assert_int_equal(tq_change(&t, "target 10ms"), 0);
	assert_int_equal(tq_change(&t, "interval 500ms"), 0);
	assert_int_equal(tq_change(&t, "ecn"), 0);
	assert_string_equal(tq_dump(&t), "limit 2p target 10ms interval 500ms ecn");
	assert_int_equal(tq_change(&t, "noecn limit 7"), 0);
	assert_string_equal(tq_dump(&t), "limit 7p target 10ms interval 500ms");
	tq_teardown(&t);
}

static void test_rejects(void **state)
{
	static const char *const bad[][2] = {
		{ "limit x", "\"x\"" },
		{ "limit", "not complete" },
		{ "target 5q", "\"5q\"" },
		{ "interval 5000s", "too large" },
		{ "flows 10", "What is \"flows\"?" },
	};
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(tq_create(&t, &mqtx__codel_qdisc_ops, bad[i][0]) < 0);
		if (!strstr(t.err, bad[i][1]))
			fail_msg("\"%s\": message \"%s\"", bad[i][0], t.err);
	}
	assert_int_equal(tq_create(&t, &mqtx__codel_qdisc_ops, NULL), 0);
	assert_int_equal(tq_change(&t, "limit 5 bogus"), MQTX_TC_EUSAGE);
	assert_int_equal(tq_change(&t, "limit"), MQTX_TC_EFATAL);
	assert_string_equal(tq_dump(&t), "limit 1000p target 5ms interval 100ms");
	/* tc sends no limit, target or interval of 0: nothing changes */
	assert_int_equal(tq_change(&t, "limit 0 target 0 interval 0"), 0);
	assert_string_equal(tq_dump(&t), "limit 1000p target 5ms interval 100ms");
	tq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_schedule),
		cmocka_unit_test(test_xstats),
		cmocka_unit_test(test_below_target_or_mtu_no_drop),
		cmocka_unit_test(test_ecn_marks),
		cmocka_unit_test(test_ce_threshold),
		cmocka_unit_test(test_limit_change_dump),
		cmocka_unit_test(test_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
