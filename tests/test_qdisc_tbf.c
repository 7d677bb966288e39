// SPDX-License-Identifier: MIT
/* tbf in virtual time: departure times, the watchdog, peak rate, limits, options, dumps. */
#include <errno.h>

#include "test_qdisc_util.h"

#define MS 1000000ull
#define T0 1000000000ull /* tq_setup's clock start */

/* Attach t->q to the device's only queue and bring the device up. */
static void tq_attach(struct tq *t)
{
	struct mqtx_qdisc *qs[1] = { t->q }, *old[1] = { NULL };

	mqtx_dev_config_lock(t->dev);
	mqtx_dev_graft_all(t->dev, qs, old);
	mqtx_dev_config_unlock(t->dev);
	assert_int_equal(mqtx_dev_open(t->dev), 0);
}

static uint64_t sent_by_driver(struct tq *t)
{
	uint64_t pk, by;

	mqtx_null_counts(t->dev, &pk, &by);
	return pk;
}

/* Advance to @at (absolute), run what the watchdog scheduled, return the driver's count. */
static uint64_t at(struct tq *t, uint64_t when)
{
	mqtx_clock_advance_to(t->clock, when);
	mqtx_tx_action();
	return sent_by_driver(t);
}

static void tq_detach(struct tq *t)
{
	mqtx_dev_close(t->dev);
	t->q = NULL; /* the device destroys it */
}

/*
 * rate 1mbit = 125000 B/s, so 1000 bytes take 8 ms of tokens; burst 2000 B is a 16 ms bucket.
 * At T0 the bucket is full (16 ms). Five 1000-byte packets sent at T0:
 *   p0: 16 - 8 = 8 ms left, goes;  p1: 8 - 8 = 0, goes;
 *   p2: 0 - 8 = -8 ms: throttled, watchdog at T0 + 8 ms (overlimit), likewise p3, p4 (3 in all).
 *   T0+8: tokens min(8, 16) + 0 - 8 = 0, p2 goes; p3 short by 8 ms -> watchdog at T0+16.
 *   T0+16: p3 goes, watchdog T0+24; T0+24: p4 goes; nothing armed after.
 * Departures: 0, 0, 8, 16, 24 ms.
 * Then idle until T0+100: the bucket refills to its 16 ms cap only, so of three more packets
 * two leave at once and the third at T0+108.
 */
static void test_departures(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx_tbf_qdisc_ops, "rate 1mbit burst 2000 limit 10000"),
			 0);
	tq_attach(&t);
	for (int i = 0; i < 5; i++)
		assert_int_equal(mqtx_dev_xmit(t.dev, tq_pkt(&t, 1000, (uint64_t)i)),
				 MQTX_XMIT_SUCCESS);
	assert_int_equal(sent_by_driver(&t), 2);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 8 * MS);
	assert_int_equal(at(&t, T0 + 8 * MS - 1), 2);
	assert_int_equal(at(&t, T0 + 8 * MS), 3);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 16 * MS);
	assert_int_equal(at(&t, T0 + 16 * MS - 1), 3);
	assert_int_equal(at(&t, T0 + 16 * MS), 4);
	assert_int_equal(at(&t, T0 + 24 * MS), 5);
	assert_true(t.q->overlimits >= 3); /* one per throttled dequeue the run loop tries */
	assert_int_equal(t.q->qlen, 0);
	assert_int_equal(mqtx_clock_next_timer(t.clock), UINT64_MAX);

	assert_int_equal(at(&t, T0 + 100 * MS), 5);
	for (int i = 0; i < 3; i++)
		mqtx_dev_xmit(t.dev, tq_pkt(&t, 1000, 10));
	assert_int_equal(sent_by_driver(&t), 7);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 108 * MS);
	assert_int_equal(at(&t, T0 + 108 * MS), 8);
	tq_detach(&t);
	tq_teardown(&t);
}

/*
 * peakrate 2mbit = 250000 B/s, mtu 1000: the peak bucket holds 4 ms and a 1000-byte packet
 * costs 4 ms of it (8 ms of the 81.92 ms main bucket, burst 10kb). At T0 p0 empties the peak
 * bucket; p1 lacks 4 ms of peak tokens (main has 65.92 ms), so watchdog at T0+4; each later
 * packet waits for the peak bucket: departures 0, 4, 8, 12 ms while the main bucket lasts.
 */
static void test_peakrate(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx_tbf_qdisc_ops,
				   "rate 1mbit burst 10kb peakrate 2mbit mtu 1000 limit 20000"),
			 0);
	assert_string_equal(tq_dump(&t),
			    "rate 1Mbit burst 10Kb peakrate 2Mbit minburst 1000b lat 78.1ms ");
	assert_string_equal(tq_json(&t), "\"rate\":125000,\"burst\":10240,\"peakrate\":250000,"
					 "\"minburst\":1000,\"lat\":78080");
	tq_attach(&t);
	for (int i = 0; i < 4; i++)
		mqtx_dev_xmit(t.dev, tq_pkt(&t, 1000, (uint64_t)i));
	assert_int_equal(sent_by_driver(&t), 1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 4 * MS);
	assert_int_equal(at(&t, T0 + 4 * MS - 1), 1);
	assert_int_equal(at(&t, T0 + 4 * MS), 2);
	assert_int_equal(at(&t, T0 + 8 * MS), 3);
	assert_int_equal(at(&t, T0 + 12 * MS), 4);
	/* the largest packet that can conform is mtu bytes */
	assert_int_equal(mqtx_dev_xmit(t.dev, tq_pkt(&t, 1001, 9)), MQTX_XMIT_DROP);
	tq_detach(&t);
	tq_teardown(&t);
}

static void test_limits_direct(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx_tbf_qdisc_ops, "rate 8kbit burst 1500 limit 3000"), 0);
	/* larger than the bucket: can never leave */
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1501, 0)), MQTX_XMIT_DROP);
	for (int i = 1; i <= 3; i++)
		assert_int_equal(tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i)), MQTX_XMIT_SUCCESS);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1, 4)), MQTX_XMIT_DROP); /* 3000 + 1 > limit */
	/* 1000 B/s: the 1.5 s bucket sends p1 now, then waits 0.5 s for p2 */
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(t.q->overlimits, 1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 500 * MS);
	/* lowered limit: the inner fifo keeps p2 and p3 (Linux: fifo_set_limit drops nothing)
	 * and refuses newcomers; the change refills the bucket, which sends p2 at once */
	assert_int_equal(tq_change(&t, "rate 8kbit burst 1500 limit 1000"), 0);
	assert_int_equal(t.q->qlen, 2);
	assert_int_equal(t.q->backlog, 2000);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1, 5)), MQTX_XMIT_DROP);
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), -1);
	mqtx_clock_advance_to(t.clock, T0 + 1000 * MS);
	assert_int_equal(tq_deq(&t), 3);
	tq_check_conservation(&t, 6);
	assert_int_equal(t.q->drops, 3);
	tq_teardown(&t); /* destroy cancels the armed watchdog */
}

static void test_dump_and_change(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx_tbf_qdisc_ops, "rate 1mbit burst 10kb latency 50ms"),
			 0);
	/* tc: limit = 125000 B/s x 50 ms + 10240 = 16490; lat = 16490/125000 s - 81.92 ms */
	assert_string_equal(tq_dump(&t), "rate 1Mbit burst 10Kb lat 50ms ");
	/* -j: rate in bytes per second, sizes in bytes, lat in microseconds */
	assert_string_equal(tq_json(&t), "\"rate\":125000,\"burst\":10240,\"lat\":50000");
	assert_int_equal(tq_change(&t, "limit 1000"), 0);
	assert_string_equal(tq_dump(&t), "rate 1Mbit burst 10Kb limit 1000b ");
	assert_string_equal(tq_json(&t), "\"rate\":125000,\"burst\":10240,\"limit\":1000");
	/* every option alone */
	assert_int_equal(tq_change(&t, "rate 2mbit"), 0);
	assert_string_equal(tq_dump(&t), "rate 2Mbit burst 10Kb limit 1000b ");
	assert_int_equal(tq_change(&t, "burst 1000"), 0);
	assert_string_equal(tq_dump(&t), "rate 2Mbit burst 1000b lat 0us ");
	assert_int_equal(tq_change(&t, "latency 10ms"), 0);
	assert_string_equal(tq_dump(&t), "rate 2Mbit burst 1000b lat 10ms ");
	assert_int_equal(tq_change(&t, "mtu 1000"), 0);
	assert_int_equal(tq_change(&t, "peakrate 4mbit"), 0);
	assert_string_equal(tq_dump(&t),
			    "rate 2Mbit burst 1000b peakrate 4Mbit minburst 1000b lat 10ms ");
	tq_teardown(&t);
}

static void test_rejects(void **state)
{
	static const char *const bad[][2] = {
		{ "", "\"rate\" is required" },
		{ "rate 1mbit limit 100", "\"burst\" is required" },
		{ "rate 1mbit burst 10kb", "\"limit\" or \"latency\"" },
		{ "rate 0 burst 10kb limit 1", "\"rate\"" },
		{ "rate 1mbit burst 10kb limit 1 latency 5ms", "\"latency\"" },
		{ "rate 1mbit burst 10kb limit 1 peakrate 2mbit", "\"mtu\"" },
		{ "rate 1mbit burst 10kb limit 1 peakrate 1mbit mtu 1500", "\"peakrate\"" },
		{ "rate 1mbitz burst 10kb limit 1", "\"1mbitz\"" },
		{
			"rate 1mbit burst 10kb latency 5",
			"",
		}, /* fine: bare time is us */
		{ "rate 1mbit burst 10kb limit 1 overhead 4", "\"overhead\"" },
		{ "rate 1mbit burst", "\"burst\" needs a value" },
	};
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = tq_create(&t, &mqtx_tbf_qdisc_ops, bad[i][0]);

		if (!bad[i][1][0]) {
			assert_int_equal(ret, 0);
			mqtx_qdisc_destroy(t.q);
			t.q = NULL;
			continue;
		}
		assert_int_equal(ret, -EINVAL);
		if (!strstr(t.err, bad[i][1]))
			fail_msg("\"%s\": message \"%s\"", bad[i][0], t.err);
	}
	assert_int_equal(tq_create(&t, &mqtx_tbf_qdisc_ops, "rate 1mbit burst 10kb limit 5000"), 0);
	assert_int_equal(tq_change(&t, "peakrate 2mbit"), -EINVAL); /* no mtu: nothing changes */
	assert_int_equal(tq_change(&t, "rate 2mbit bogus"), -EINVAL);
	assert_string_equal(tq_dump(&t), "rate 1Mbit burst 10Kb limit 5000b ");
	tq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_departures),    cmocka_unit_test(test_peakrate),
		cmocka_unit_test(test_limits_direct), cmocka_unit_test(test_dump_and_change),
		cmocka_unit_test(test_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
