// SPDX-License-Identifier: MIT
/* fq in virtual time: pacing by maxrate (with the flow's credit, and below low_rate_threshold),
 * by the departure time the sender sets, the horizon, flow_limit, the fast path, options as tc
 * sends them, dumps, statistics, live replace. */
#include <errno.h>
#include <inttypes.h>

#include "test_qdisc_util.h"

#define US 1000ull
#define MS 1000000ull
#define T0 1000000000ull /* tq_setup's clock start */

/* One flow: the same UDP 5-tuple every time. */
static struct mqtx_pkt *flow_pkt(struct tq *t, uint32_t len, uint64_t user)
{
	struct mqtx_pkt *p = tq_udp4(t, len, 0x0a000001, 0x0a000002, 1000, 2000, 0);

	p->user = user;
	return p;
}

/* Dequeue until the qdisc gives nothing at the current time: the tags, in order, into @out. */
static unsigned drain_now(struct tq *t, int64_t *out, unsigned max)
{
	unsigned n = 0;
	int64_t u;

	while ((u = tq_deq(t)) >= 0)
		if (n < max)
			out[n++] = u;
	return n;
}

/*
 * maxrate 1mbit = 125000 B/s, above low_rate_threshold (550kbit = 68750 B/s): a flow sends
 * while its credit lasts, and the packet that exhausts it delays the flow by
 * max(len, quantum) / maxrate (fq_dequeue()). mtu 1500: quantum 2 * 1514 = 3028, initial
 * quantum 15140. 1000-byte packets: credit 15140 - 1000 k stays positive for 15 packets, the
 * 16th takes it to -860 and the flow waits 3028 B / 125000 B/s = 24.224 ms. The flow then gets
 * a quantum (2168), sends 3 packets (1168, 168, -832) and waits 24.224 ms again, exactly: the
 * watchdog fires at the flow's time, so no lateness is taken back.
 */
static void test_maxrate_pacing(void **state)
{
	const uint64_t gap = 24224 * US;
	int64_t got[32];
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, "maxrate 1mbit"), 0);
	for (int i = 0; i < 22; i++)
		assert_int_equal(tq_enq(&t, flow_pkt(&t, 1000, (uint64_t)i)), MQTX_XMIT_SUCCESS);
	assert_int_equal(drain_now(&t, got, 32), 16);
	for (int i = 0; i < 16; i++)
		assert_int_equal(got[i], i);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + gap);
	assert_true(strstr(tq_xstats(&t, 0, false), "flows 1 (inactive 0 throttled 1)"));
	assert_true(strstr(tq_xstats(&t, 0, false), "next_packet_delay 24.2ms"));
	mqtx_clock_advance_to(t.clock, T0 + gap - 1);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + gap);
	assert_int_equal(drain_now(&t, got, 32), 3);
	assert_int_equal(got[0], 16);
	assert_int_equal(got[2], 18);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 2 * gap);
	mqtx_clock_advance_to(t.clock, T0 + 2 * gap);
	assert_int_equal(drain_now(&t, got, 32), 3);
	assert_int_equal(got[0], 19);
	assert_true(strstr(tq_xstats(&t, 0, false), "gc 0 highprio 0 throttled 2"));
	tq_check_conservation(&t, 22);
	tq_teardown(&t);
}

/* maxrate 400kbit = 50000 B/s is at or below low_rate_threshold: the flow's credit is zeroed
 * after every packet, so each one waits its own length, 1000 B / 50000 B/s = 20 ms. */
static void test_low_rate_paces_every_packet(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, "maxrate 400kbit"), 0);
	for (int i = 0; i < 4; i++)
		tq_enq(&t, flow_pkt(&t, 1000, (uint64_t)i));
	for (int i = 0; i < 4; i++) {
		uint64_t due = T0 + (uint64_t)i * 20 * MS;

		if (i) {
			assert_int_equal(mqtx_clock_next_timer(t.clock), due);
			mqtx_clock_advance_to(t.clock, due - 1);
			assert_int_equal(tq_deq(&t), -1);
			mqtx_clock_advance_to(t.clock, due);
		}
		assert_int_equal(tq_deq(&t), i);
		assert_int_equal(tq_deq(&t), -1);
	}
	tq_check_conservation(&t, 4);
	tq_teardown(&t);
}

/*
 * Departure times: p0 asks for T0+5ms and p1 for T0+3ms on the same flow, p2 for nothing. The
 * flow keeps them in time order (flow_queue_add()): p2 now, p1 at T0+3ms, p0 at T0+5ms; a
 * departure time paces nothing more without a maxrate. Another flow's packet due at T0+1ms
 * leaves at T0+1ms, between them.
 */
static void test_departure_time(void **state)
{
	struct mqtx_pkt *p;
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, NULL), 0);
	p = flow_pkt(&t, 500, 0);
	mqtx_pkt_set_txtime(p, T0 + 5 * MS);
	assert_int_equal(mqtx_pkt_txtime(p), T0 + 5 * MS);
	tq_enq(&t, p);
	p = flow_pkt(&t, 500, 1);
	mqtx_pkt_set_txtime(p, T0 + 3 * MS);
	tq_enq(&t, p);
	tq_enq(&t, flow_pkt(&t, 500, 2));
	p = tq_udp4(&t, 500, 0x0a000009, 0x0a000002, 7, 8, 0);
	p->user = 3;
	mqtx_pkt_set_txtime(p, T0 + 1 * MS);
	tq_enq(&t, p);

	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 1 * MS);
	mqtx_clock_advance_to(t.clock, T0 + 1 * MS);
	assert_int_equal(tq_deq(&t), 3);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 3 * MS);
	mqtx_clock_advance_to(t.clock, T0 + 3 * MS - 1);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 3 * MS);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 5 * MS);
	mqtx_clock_advance_to(t.clock, T0 + 5 * MS);
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(mqtx_clock_next_timer(t.clock), UINT64_MAX);
	tq_check_conservation(&t, 4);
	tq_teardown(&t);
}

/* A departure time further ahead than the horizon is dropped (horizon_drop, the default) or
 * brought to the horizon (horizon_cap); at the horizon exactly it is kept. */
static void test_horizon(void **state)
{
	struct mqtx_pkt *p;
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, "horizon 10ms"), 0);
	p = flow_pkt(&t, 500, 0);
	mqtx_pkt_set_txtime(p, T0 + 10 * MS + 1);
	assert_int_equal(tq_enq(&t, p), MQTX_XMIT_DROP);
	p = flow_pkt(&t, 500, 1);
	mqtx_pkt_set_txtime(p, T0 + 10 * MS);
	assert_int_equal(tq_enq(&t, p), MQTX_XMIT_SUCCESS);
	assert_string_equal(tq_xstats(&t, 0, false), "  flows 1 (inactive 0 throttled 0)\n"
						     "  gc 0 highprio 0 throttled 0\n"
						     " horizon_drops 1");
	assert_int_equal(tq_change(&t, "horizon_cap"), 0);
	p = flow_pkt(&t, 500, 2);
	mqtx_pkt_set_txtime(p, T0 + 50 * MS);
	assert_int_equal(tq_enq(&t, p), MQTX_XMIT_SUCCESS);
	assert_int_equal(mqtx_pkt_txtime(p), T0 + 10 * MS);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 10 * MS);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), 2);
	assert_true(strstr(tq_xstats(&t, 0, false), "horizon_drops 1  horizon_caps 1"));
	tq_check_conservation(&t, 3);
	tq_teardown(&t);
}

/* flow_limit per flow, limit per band; a packet due now into an idle fq takes the fast path
 * and makes no flow. */
static void test_limits_and_fast_path(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, "flow_limit 3 maxrate 10gbit"), 0);
	for (int i = 0; i < 4; i++)
		tq_enq(&t, flow_pkt(&t, 100, (uint64_t)i));
	assert_int_equal(t.refused, 1);
	assert_true(strstr(tq_xstats(&t, 0, false), "flows_plimit 1"));
	assert_int_equal(tq_change(&t, "limit 2"), 0); /* trims what would leave first */
	assert_int_equal(t.q->qlen, 2);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), 2);
	tq_check_conservation(&t, 4);
	mqtx_qdisc_destroy(t.q);
	t.q = NULL;

	t.accepted = t.refused = t.sent = 0;
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, NULL), 0);
	tq_enq(&t, flow_pkt(&t, 100, 7));
	assert_true(strstr(tq_xstats(&t, 0, false), "flows 0 (inactive 0 throttled 0)"));
	assert_int_equal(t.q->ops->peek(t.q)->user, 7);
	assert_int_equal(t.q->qlen, 1);
	assert_int_equal(tq_deq(&t), 7);
	tq_teardown(&t);
}

/* The priority picks the band; band 0 (priority 6, 7) has the largest weight. */
static void test_bands(void **state)
{
	struct mqtx_pkt *p;
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, "limit 2 maxrate 10gbit"), 0);
	/* prio 1 -> band 2: two fit, the third is over the band's limit (a maxrate keeps them
	 * off the fast path, which counts in no band) */
	for (int i = 0; i < 3; i++) {
		p = tq_udp4(&t, 100, 0x0a000001 + (uint32_t)i, 2, 1, 2, 0);
		p->priority = 1;
		p->user = (uint64_t)i;
		tq_enq(&t, p);
	}
	assert_int_equal(t.refused, 1);
	p = flow_pkt(&t, 100, 9); /* prio 0 -> band 1: a band of its own */
	assert_int_equal(tq_enq(&t, p), MQTX_XMIT_SUCCESS);
	assert_int_equal(t.q->qlen, 3);
	while (tq_deq(&t) >= 0)
		;
	tq_check_conservation(&t, 4);
	assert_int_equal(tq_change(&t, "weights 100 20000 20000"), -EINVAL);
	assert_string_equal(t.err, "Weight 100 less that minimum allowed 16384");
	assert_int_equal(tq_change(&t, "priomap 0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 3"), -EINVAL);
	tq_teardown(&t);
}

/* A flow is its 5-tuple, whatever hash queue selection left on the packet (none with one TX
 * queue): packets with and without one are one flow, in one order. */
static void test_flow_is_the_tuple(void **state)
{
	struct mqtx_pkt *p;
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, "flow_limit 2 maxrate 10gbit"), 0);
	for (int i = 0; i < 3; i++) {
		p = flow_pkt(&t, 100, (uint64_t)i);
		if (i != 1) {
			p->hash = 5u + (uint32_t)i;
			p->flags |= MQTX_PKT_F_HASH_VALID;
		}
		tq_enq(&t, p);
	}
	assert_int_equal(t.refused, 1);
	assert_true(strstr(tq_xstats(&t, 0, false), "flows 1 "));
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(tq_deq(&t), 1);
	tq_check_conservation(&t, 3);
	tq_teardown(&t);
}

static void test_dump_and_parse(void **state)
{
	struct tq t;
	void *opt;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, NULL), 0);
	assert_string_equal(tq_dump(&t),
			    "limit 10000p flow_limit 100p buckets 1024 orphan_mask 1023 "
			    "quantum 3028b initial_quantum 15140b "
			    "low_rate_threshold 550Kbit refill_delay 40ms timer_slack "
			    "10us horizon 10s horizon_drop");
	assert_int_equal(tq_change(&t, "limit 3000 flow_limit 300 quantum 9000 initial_quantum "
				       "900000 maxrate 100000 nopacing refill_delay 100ms "
				       "low_rate_threshold 10000 orphan_mask 255 timer_slack 100 "
				       "ce_threshold 100 horizon 100 horizon_cap buckets 16"),
			 0);
	assert_string_equal(tq_dump(&t), "limit 3000p flow_limit 300p buckets 16 orphan_mask 255 "
					 "nopacing quantum 9000b initial_quantum 900000b maxrate "
					 "100Kbit low_rate_threshold 10Kbit refill_delay 100ms "
					 "ce_threshold 100us timer_slack 100ns horizon 100us "
					 "horizon_cap");
	assert_string_equal(tq_json(&t),
			    "\"limit\":3000,\"flow_limit\":300,\"buckets\":16,\"orphan_mask\":255,"
			    "\"pacing\":false,\"quantum\":9000,\"initial_quantum\":900000,"
			    "\"maxrate\":12500,\"low_rate_threshold\":1250,\"refill_delay\":100000,"
			    "\"ce_threshold\":100,\"timer_slack\":100,\"horizon\":100,"
			    "\"horizon_cap\":null");
	/* quantum is clamped to 256..1M; initial_quantum over 1M is refused */
	assert_int_equal(tq_change(&t, "quantum 10"), 0);
	assert_true(strstr(tq_dump(&t), "quantum 256b"));
	assert_int_equal(tq_change(&t, "initial_quantum 0x80000000"), -EINVAL);
	assert_string_equal(t.err, "integer out of range");
	assert_int_equal(tq_change(&t, "buckets 1"), -EINVAL);
	assert_true(strstr(tq_dump(&t), "buckets 16"));
	assert_int_equal(tq_parse(&mqtx__fq_qdisc_ops, "limit x", &opt, t.err, sizeof(t.err)),
			 -EINVAL);
	assert_string_equal(t.err, "fq: illegal value for \"limit\": \"x\"");
	assert_int_equal(
		tq_parse(&mqtx__fq_qdisc_ops, "timer_slack 5s", &opt, t.err, sizeof(t.err)),
		-EINVAL);
	assert_int_equal(tq_parse(&mqtx__fq_qdisc_ops, "bogus", &opt, t.err, sizeof(t.err)),
			 MQTX_TC_EUSAGE);
	assert_int_equal(tq_parse(&mqtx__fq_qdisc_ops, "limit", &opt, t.err, sizeof(t.err)),
			 MQTX_TC_EFATAL);
	tq_teardown(&t);
}

/* Replacing an fq that holds paced packets moves them all into the new qdisc, in the order fq
 * would have sent them. */
static void test_replace_moves_held_backlog(void **state)
{
	struct mqtx_qdisc *qs[1], *old[1] = { NULL }, *pf;
	struct mqtx_txq_stats st;
	uint64_t pk, by;
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_qdisc_ops, "maxrate 400kbit"), 0);
	qs[0] = t.q;
	mqtx_dev_config_lock(t.dev);
	mqtx_dev_graft_all(t.dev, qs, old);
	mqtx_dev_config_unlock(t.dev);
	assert_int_equal(mqtx_dev_open(t.dev), 0);
	for (int i = 0; i < 5; i++)
		mqtx_dev_xmit(t.dev, flow_pkt(&t, 1000, (uint64_t)i));
	mqtx_null_counts(t.dev, &pk, &by);
	assert_int_equal(pk, 1);
	assert_int_equal(t.q->qlen, 4);
	assert_int_equal(mqtx_qdisc_create(t.dev, mqtx_dev_txq(t.dev, 0), &mqtx__pfifo_qdisc_ops,
					   0x20000, NULL, NULL, &pf),
			 0);
	qs[0] = pf;
	mqtx_dev_config_lock(t.dev);
	mqtx_dev_graft_all(t.dev, qs, old);
	mqtx_dev_config_unlock(t.dev);
	assert_ptr_equal(old[0], t.q);
	mqtx_qdisc_destroy(old[0]);
	mqtx_tx_action();
	mqtx_null_counts(t.dev, &pk, &by);
	assert_int_equal(pk, 5);
	mqtx_txq_get_stats(mqtx_dev_txq(t.dev, 0), &st);
	assert_int_equal(mqtx_txq_stats_drops(&st), 0);
	mqtx_dev_close(t.dev);
	t.q = NULL;
	tq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maxrate_pacing),
		cmocka_unit_test(test_low_rate_paces_every_packet),
		cmocka_unit_test(test_departure_time),
		cmocka_unit_test(test_horizon),
		cmocka_unit_test(test_limits_and_fast_path),
		cmocka_unit_test(test_bands),
		cmocka_unit_test(test_flow_is_the_tuple),
		cmocka_unit_test(test_dump_and_parse),
		cmocka_unit_test(test_replace_moves_held_backlog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
