// SPDX-License-Identifier: MIT
/* tbf in virtual time: departure times, the watchdog, peak rate, link-layer charges, limits,
 * options as tc sends them, dumps. */
#include <errno.h>
#include <inttypes.h>

#include "test_qdisc_util.h"

#define MS 1000000ull
#define T0 1000000000ull /* tq_setup's clock start */

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
	assert_int_equal(tq_create(&t, &mqtx__tbf_qdisc_ops, "rate 1mbit burst 2000 limit 10000"),
			 0);
	tq_attach(&t);
	for (int i = 0; i < 5; i++)
		assert_int_equal(mqtx_dev_xmit(t.dev, tq_pkt(&t, 1000, (uint64_t)i)),
				 MQTX_XMIT_SUCCESS);
	assert_int_equal(tq_driver_sent(&t), 2);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 8 * MS);
	assert_int_equal(tq_at(&t, T0 + 8 * MS - 1), 2);
	assert_int_equal(tq_at(&t, T0 + 8 * MS), 3);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 16 * MS);
	assert_int_equal(tq_at(&t, T0 + 16 * MS - 1), 3);
	assert_int_equal(tq_at(&t, T0 + 16 * MS), 4);
	assert_int_equal(tq_at(&t, T0 + 24 * MS), 5);
	/* Linux counts each dequeue that finds a packet without tokens. Its run on a device
	 * without BQL dequeues one packet at a time and stops at the first NULL: p2, p3 and p4
	 * each find p2 short at T0 (3), then each watchdog run sends one and finds the next
	 * short once (T0+8, T0+16): 5. */
	assert_int_equal(t.q->overlimits, 5);
	assert_int_equal(t.q->qlen, 0);
	assert_int_equal(mqtx_clock_next_timer(t.clock), UINT64_MAX);

	assert_int_equal(tq_at(&t, T0 + 100 * MS), 5);
	for (int i = 0; i < 3; i++)
		mqtx_dev_xmit(t.dev, tq_pkt(&t, 1000, 10));
	assert_int_equal(tq_driver_sent(&t), 7);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 108 * MS);
	assert_int_equal(tq_at(&t, T0 + 108 * MS), 8);
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
	assert_int_equal(tq_create(&t, &mqtx__tbf_qdisc_ops,
				   "rate 1mbit burst 10kb peakrate 2mbit mtu 1000 limit 20000"),
			 0);
	assert_string_equal(tq_dump(&t),
			    "rate 1Mbit burst 10Kb peakrate 2Mbit minburst 1000b lat 78.1ms ");
	assert_string_equal(tq_json(&t), "\"rate\":125000,\"burst\":10240,\"peakrate\":250000,"
					 "\"minburst\":1000,\"lat\":78080");
	tq_attach(&t);
	for (int i = 0; i < 4; i++)
		mqtx_dev_xmit(t.dev, tq_pkt(&t, 1000, (uint64_t)i));
	assert_int_equal(tq_driver_sent(&t), 1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 4 * MS);
	assert_int_equal(tq_at(&t, T0 + 4 * MS - 1), 1);
	assert_int_equal(tq_at(&t, T0 + 4 * MS), 2);
	assert_int_equal(tq_at(&t, T0 + 8 * MS), 3);
	assert_int_equal(tq_at(&t, T0 + 12 * MS), 4);
	/* the largest packet that can conform is mtu bytes */
	assert_int_equal(mqtx_dev_xmit(t.dev, tq_pkt(&t, 1001, 9)), MQTX_XMIT_DROP);
	tq_detach(&t);
	tq_teardown(&t);
}

/* Replacing a tbf that holds packets back (out of tokens) moves them all, in order, into the
 * new qdisc, as mqtx moves any replaced qdisc's backlog: dequeue alone gives none of them. */
static void test_replace_moves_held_backlog(void **state)
{
	struct mqtx_txq_stats st;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__tbf_qdisc_ops, "rate 8kbit burst 1500 limit 100000"),
			 0);
	tq_attach(&t);
	for (int i = 0; i < 5; i++)
		mqtx_dev_xmit(t.dev, tq_pkt(&t, 1000, (uint64_t)i));
	assert_int_equal(tq_driver_sent(&t), 1);
	assert_int_equal(t.q->qlen, 4);
	assert_int_equal(tq_replace_by_pfifo(&t), 5);
	mqtx_txq_get_stats(mqtx_dev_txq(t.dev, 0), &st);
	assert_int_equal(mqtx_txq_stats_drops(&st), 0);
	tq_detach(&t);
	tq_teardown(&t);
}

/* peek returns what dequeue would: nothing while the head lacks tokens, which (tbf peeking by
 * dequeuing in Linux) arms the watchdog and counts an overlimit. */
static void test_peek_is_dequeue(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__tbf_qdisc_ops, "rate 1mbit burst 2000 limit 10000"),
			 0);
	assert_null(t.q->ops->peek(t.q));
	for (int i = 0; i < 3; i++)
		tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i));
	assert_int_equal(t.q->ops->peek(t.q)->user, 0);
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(t.q->overlimits, 0);
	assert_null(t.q->ops->peek(t.q));
	assert_int_equal(t.q->overlimits, 1);
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 8 * MS);
	mqtx_clock_advance_to(t.clock, T0 + 8 * MS);
	assert_int_equal(t.q->ops->peek(t.q)->user, 2);
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(t.q->overlimits, 1);
	tq_check_conservation(&t, 3);
	tq_teardown(&t);
}

static void test_limits_direct(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__tbf_qdisc_ops, "rate 8kbit burst 1500 limit 3000"),
			 0);
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

/* Each change is the whole option set (tc sends it all); the strings are what tc 6.1 prints
 * for the same commands on Linux 6.18. */
static void test_dump_and_change(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__tbf_qdisc_ops, "rate 1mbit burst 10kb latency 50ms"),
			 0);
	/* tc: limit = 125000 B/s x 50 ms + 10240 = 16490; lat = 16490/125000 s - 81.92 ms */
	assert_string_equal(tq_dump(&t), "rate 1Mbit burst 10Kb lat 50ms ");
	/* -j: rate in bytes per second, sizes in bytes, lat in microseconds */
	assert_string_equal(tq_json(&t), "\"rate\":125000,\"burst\":10240,\"lat\":50000");
	assert_int_equal(tq_change(&t, "rate 1mbit burst 10kb limit 1000"), 0);
	assert_string_equal(tq_dump(&t), "rate 1Mbit burst 10Kb limit 1000b ");
	assert_string_equal(tq_json(&t), "\"rate\":125000,\"burst\":10240,\"limit\":1000");
	assert_int_equal(
		tq_change(&t, "rate 2mbit burst 1000 latency 10ms peakrate 4mbit mtu 1000"), 0);
	assert_string_equal(tq_dump(&t),
			    "rate 2Mbit burst 1000b peakrate 4Mbit minburst 1000b lat 10ms ");
	/* an mtu without a peak rate is not sent */
	assert_int_equal(tq_change(&t, "rate 1mbit burst 10kb latency 50ms mtu 1000"), 0);
	assert_string_equal(tq_dump(&t), "rate 1Mbit burst 10Kb lat 50ms ");
	/* ATM cells of 10240 + 100 bytes: 216 x 53 = 11448; the peak bucket 1100 -> 23 cells */
	assert_int_equal(tq_change(&t, "rate 1mbit burst 10kb latency 50ms peakrate 2mbit mtu 1000 "
				       "overhead 100 linklayer atm mpu 64"),
			 0);
	assert_string_equal(tq_dump(&t), "rate 1Mbit burst 11448b peakrate 2Mbit minburst 1218b "
					 "lat 49.1ms overhead 100 linklayer atm ");
	assert_string_equal(tq_json(&t), "\"rate\":125000,\"burst\":11448,\"peakrate\":250000,"
					 "\"minburst\":1218,\"lat\":49125,\"overhead\":100,"
					 "\"linklayer\":\"atm\"");
	/* -d: "SIZE/CELL" (Linux keeps no cell: /1) and mpu for each bucket, the link layer; the
	 * JSON has "mpu" twice, as tc's */
	assert_string_equal(tq_dump_details(&t, false),
			    "rate 1Mbit burst 11448b/1 mpu 64b peakrate 2Mbit mtu 1218b/1 mpu 64b "
			    "lat 49.1ms overhead 100 linklayer atm ");
	assert_string_equal(tq_dump_details(&t, true),
			    "\"rate\":125000,\"burst\":\"11448b/1\",\"mpu\":64,\"peakrate\":250000,"
			    "\"mtu\":\"1218b/1\",\"mpu\":64,\"lat\":49125,\"overhead\":100,"
			    "\"linklayer\":\"atm\"");
	assert_int_equal(tq_change(&t, "rate 1mbit burst 10kb/8 limit 3000 mpu 2000"), 0);
	assert_string_equal(tq_dump_details(&t, false),
			    "rate 1Mbit burst 10Kb/1 mpu 2000b limit 3000b linklayer ethernet ");
	tq_teardown(&t);
}

/* A change that leaves the peak rate (and the overhead) out turns them off: the old peak rate
 * of 2mbit must neither refuse a 4mbit rate nor keep capping packets at its mtu. */
static void test_change_replaces_all(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__tbf_qdisc_ops,
				   "rate 1mbit burst 10kb limit 20000 "
				   "peakrate 2mbit mtu 1000 overhead 10"),
			 0);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1500, 0)), MQTX_XMIT_DROP); /* > mtu */
	assert_int_equal(tq_change(&t, "rate 4mbit burst 10kb limit 20000"), 0);
	assert_string_equal(tq_dump(&t), "rate 4Mbit burst 10Kb lat 19.5ms ");
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1500, 1)), MQTX_XMIT_SUCCESS);
	/* 10240 B of bucket at 500000 B/s, 1500 B each and no overhead: 6 go, the 7th waits */
	for (int i = 2; i <= 7; i++)
		tq_enq(&t, tq_pkt(&t, 1500, (uint64_t)i));
	for (int i = 1; i <= 6; i++)
		assert_int_equal(tq_deq(&t), i);
	assert_int_equal(tq_deq(&t), -1);
	/* short by 1500 - 1240 = 260 bytes: 520 us at 4mbit */
	assert_int_equal(mqtx_clock_next_timer(t.clock), T0 + 520000);
	mqtx_clock_advance_to(t.clock, T0 + 520000);
	assert_int_equal(tq_deq(&t), 7);
	tq_check_conservation(&t, 8);
	tq_teardown(&t);
}

/*
 * psched_l2t_ns() charges overhead first, then mpu, then ATM cells. At 1mbit (125000 B/s),
 * where a 2000-byte bucket (16 ms) plainly sends two 1000-byte packets and the third waits
 * 8 ms:
 *   overhead 24: the 2000-byte bucket is 2024 B (16.192 ms), a 1000-byte packet 1024 B
 *   (8.192 ms): p0 leaves 8 ms, p1 is 0.192 ms short.
 *   mpu 500: 100-byte packets cost 500 B (4 ms) each: four go from the 16 ms bucket.
 *   atm: the bucket is 42 cells (2226 B, 17.808 ms), a packet 21 cells (1113 B, 8.904 ms):
 *   two go, the third is 8.904 ms short.
 */
static void test_link_layer_charges(void **state)
{
	static const struct {
		const char *opts;
		uint32_t len;
		int go;
		uint64_t wait;
	} cases[] = {
		{ "rate 1mbit burst 2000 limit 100000 overhead 24", 1000, 1, 192000 },
		{ "rate 1mbit burst 2000 limit 100000 mpu 500", 100, 4, 4000000 },
		{ "rate 1mbit burst 2000 limit 100000 linklayer atm", 1000, 2, 8904000 },
		{ "rate 1mbit burst 2000 limit 100000", 1000, 2, 8000000 },
	};
	struct tq t;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tq_setup(&t, 100, 1500);
		if (tq_create(&t, &mqtx__tbf_qdisc_ops, cases[i].opts))
			fail_msg("%s: %s", cases[i].opts, t.err);
		for (int k = 0; k <= cases[i].go; k++)
			tq_enq(&t, tq_pkt(&t, cases[i].len, (uint64_t)k));
		for (int k = 0; k < cases[i].go; k++)
			assert_int_equal(tq_deq(&t), k);
		assert_int_equal(tq_deq(&t), -1);
		if (mqtx_clock_next_timer(t.clock) != T0 + cases[i].wait)
			fail_msg("%s: next departure at T0 + %" PRIu64 " ns", cases[i].opts,
				 (uint64_t)(mqtx_clock_next_timer(t.clock) - T0));
		mqtx_clock_advance_to(t.clock, T0 + cases[i].wait);
		assert_int_equal(tq_deq(&t), cases[i].go);
		tq_teardown(&t);
	}
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__tbf_qdisc_ops, cases[0].opts), 0);
	assert_string_equal(tq_dump(&t), "rate 1Mbit burst 2024b lat 784ms overhead 24 ");
	tq_teardown(&t);
}

/* tc's grammar: some words abbreviated, SIZE/CELL, duplicates refused, the whole set needed. */
static void test_rejects(void **state)
{
	static const char *const bad[][2] = {
		{ "", "\"rate\" parameter is mandatory" },
		{ "rate 1mbit limit 100", "\"burst\" parameter is mandatory" },
		{ "rate 1mbit burst 10kb", "either \"limit\" or \"latency\" is required" },
		{ "rate 0 burst 10kb limit 1", "\"rate\"" },
		{ "rate 1mbit burst 10kb limit 1 latency 5ms", "both" },
		{ "rate 1mbit burst 10kb latency 5ms limit 1", "both" },
		{ "rate 1mbit burst 10kb limit 1 peakrate 2mbit", "\"mtu\" must also" },
		{ "rate 1mbit burst 10kb limit 1 peakrate 1mbit mtu 1500",
		  "\"peakrate\" 1Mbit is not higher than \"rate\" 1Mbit" }, /* logged */
		{ "rate 1mbitz burst 10kb limit 1", "\"rate\": \"1mbitz\"" },
		{ "rate 1mbit burst 10kb limit 1 rate 2mbit", "duplicate \"rate\"" },
		{ "rate 1mbit burst 10kb buffer 2kb limit 1",
		  "duplicate \"buffer/burst/maxburst\"" },
		{ "rate 1mbit burst 10kb/3 limit 1", "\"burst\": \"10kb/3\"" },
		{ "rate 1mbit bu 10kb/0 limit 1", "\"bu\": \"10kb/0\"" },
		{ "rate 1mbit burst 10kb limit 1 overhead 70000", "\"overhead\": \"70000\"" },
		{ "rate 1mbit burst 10kb limit 1 overhead -1", "\"overhead\": \"-1\"" },
		{ "rate 1mbit burst 10kb limit 1 linklayer foo", "\"linklayer\": \"foo\"" },
		{ "rat 1mbit burst 10kb limit 1", "unknown parameter \"rat\"" },
		{ "rate 1mbit burst 10kb limit 1 help", "" }, /* the usage, which ctl prints */
		{ "rate 1mbit burst", "Command line is not complete" },
		{ "", "tbf: the \"rate\" parameter is mandatory.\n"
		      "tbf: the \"burst\" parameter is mandatory.\n"
		      "tbf: either \"limit\" or \"latency\" is required." },
	};
	static const char *const good[][2] = {
		{ "rate 1mbit burst 10kb latency 5", "rate 1Mbit burst 10Kb lat 0us " }, /* 5 us */
		{ "rate 1mbit bur 10kb/8 lat 50ms over 7 link a",
		  "rate 1Mbit burst 11342b lat 41.2ms overhead 7 linklayer atm " },
		{ "rate 1mbit b 10kb l 3000 link ad",
		  "rate 1Mbit burst 11342b limit 3000b linklayer atm " },
		{ "rate 1mbit p 2mbit minburst 1540/4 maxburst 10kb li 1 link e",
		  "rate 1Mbit burst 10Kb peakrate 2Mbit minburst 1540b limit 1b " },
	};
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(tq_create(&t, &mqtx__tbf_qdisc_ops, bad[i][0]) < 0);
		if (!strstr(t.err, bad[i][1]))
			fail_msg("\"%s\": message \"%s\"", bad[i][0], t.err);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (tq_create(&t, &mqtx__tbf_qdisc_ops, good[i][0]))
			fail_msg("\"%s\": %s", good[i][0], t.err);
		assert_string_equal(tq_dump(&t), good[i][1]);
		mqtx_qdisc_destroy(t.q);
		t.q = NULL;
	}
	assert_int_equal(tq_create(&t, &mqtx__tbf_qdisc_ops, "rate 1mbit burst 10kb limit 5000"),
			 0);
	/* refused changes change nothing */
	assert_int_equal(tq_change(&t, "rate 2mbit burst 1kb limit 1 peakrate 2mbit mtu 1k"),
			 -EINVAL);
	assert_int_equal(tq_change(&t, "rate 2mbit bogus"), MQTX_TC_EUSAGE);
	assert_int_equal(tq_change(&t, "rate 2mbit"), MQTX_TC_EUSAGE);
	assert_string_equal(tq_dump(&t), "rate 1Mbit burst 10Kb limit 5000b ");
	tq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_departures),
		cmocka_unit_test(test_peakrate),
		cmocka_unit_test(test_peek_is_dequeue),
		cmocka_unit_test(test_replace_moves_held_backlog),
		cmocka_unit_test(test_limits_direct),
		cmocka_unit_test(test_dump_and_change),
		cmocka_unit_test(test_change_replaces_all),
		cmocka_unit_test(test_link_layer_charges),
		cmocka_unit_test(test_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
