// SPDX-License-Identifier: MIT
/* police: exact in virtual time. Conform and exceed counts for known arrival patterns, the
 * peak rate over an MTU, the MTU alone, the packet rate, verdicts, and what is counted where. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cls_fixture.h"

#define MS 1000000ull
#define T0 1000000000ull

struct vt {
	struct cx c;
	struct mqtx_clock *clock;
	struct mqtx_dev *dev; /* "v0": null driver, 4 queues, on @clock */
};

static void vt_setup(struct vt *t)
{
	struct mqtx_dev_cfg cfg = { .name = "v0", .ops = &mqtx_null_ops, .num_txq = 4 };

	cx_setup(&t->c);
	assert_int_equal(mqtx_clock_new_virtual(T0, &t->clock), 0);
	cfg.clock = t->clock;
	assert_int_equal(mqtx_dev_create(&cfg, &t->dev), 0);
	assert_int_equal(mqtx_dev_open(t->dev), 0);
	assert_int_equal(mqtx_ctl_add_dev(t->c.ctl, t->dev), 0);
	cx_ok(&t->c, "qdisc add dev v0 clsact");
}

static void vt_teardown(struct vt *t)
{
	cx_teardown(&t->c); /* destroys v0 */
	mqtx_clock_free(t->clock);
}

/* A UDP frame of @len bytes (FCS excluded). */
static struct flow sized(uint32_t len)
{
	return (struct flow){ "10.0.0.1", "10.0.0.2", 1, 2, 0, 0, 0, len + 4 };
}

static unsigned send_n(struct vt *t, uint32_t len, unsigned n)
{
	struct flow f = sized(len);

	return cx_send(&t->c, t->dev, &f, n);
}

/* The action's counters, from -s: "Sent B bytes P pkt (dropped D, overlimits O". */
static void hook_stats(struct vt *t, const char *hook, uint64_t *bytes, uint64_t *pkts,
		       uint64_t *drops, uint64_t *over)
{
	const char *s;

	cx_ok(&t->c, "-s filter show dev v0 %s", hook);
	s = strstr(t->c.out, "\tSent ");
	assert_non_null(s);
	assert_int_equal(sscanf(s, "\tSent %lu bytes %lu pkt (dropped %lu, overlimits %lu", bytes,
				pkts, drops, over),
			 4);
}

static void act_stats(struct vt *t, uint64_t *pkts, uint64_t *drops, uint64_t *over)
{
	const char *s;

	cx_ok(&t->c, "-s filter show dev v0 egress");
	s = strstr(t->c.out, "\tSent ");
	assert_non_null(s);
	assert_int_equal(sscanf(s, "\tSent %*u bytes %lu pkt (dropped %lu, overlimits %lu", pkts,
				drops, over),
			 3);
}

/*
 * rate 8kbit = 1000 B/s, burst 1500 B = 1.5 s of tokens, full at the start. 500-byte packets
 * cost 0.5 s each: at T0 three fit and the fourth exceeds; 0.5 s later one more fits; after
 * 10 s the bucket is full again, but not beyond its depth: three more, then one exceeds.
 */
static void test_bucket(void **state)
{
	uint64_t pkts, drops, over;
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "filter add dev v0 egress matchall action police rate 8kbit burst 1500 "
		    "conform-exceed drop/pass");
	assert_int_equal(send_n(&t, 500, 4), 3);
	mqtx_clock_advance_to(t.clock, T0 + 500 * MS);
	assert_int_equal(send_n(&t, 500, 2), 1);
	mqtx_clock_advance_to(t.clock, T0 + 10500 * MS);
	assert_int_equal(send_n(&t, 500, 4), 3);
	act_stats(&t, &pkts, &drops, &over);
	assert_int_equal(pkts, 10);
	assert_int_equal(drops, 3);
	assert_int_equal(over, 3);
	assert_int_equal(cx_stats(t.dev).txq.drops[MQTX_DROP_POLICE], 3);
	assert_int_equal(cx_stats(t.dev).txq.packets, 7);
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/*
 * rate 1mbit = 125000 B/s, burst 10240 B = 81.92 ms; 1000-byte packets (8 ms each) every
 * 4 ms, twice the rate, 250 of them. While the bucket lasts each packet leaves it 4 ms lower:
 * packet n finds 81.92 - 4n ms, so n = 0..18 conform (19). From then on the bucket holds
 * 1.92 ms after a conforming packet, too little 4 ms later and enough 8 ms later: every other
 * packet conforms, 115 of the 231 left. 134 conform, 116 exceed: the burst plus the rate over
 * 996 ms is 134740 bytes.
 */
static void test_arrivals(void **state)
{
	uint64_t pkts, drops, over;
	unsigned ok = 0;
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "filter add dev v0 egress matchall action police rate 1mbit burst 10k "
		    "conform-exceed drop");
	for (unsigned n = 0; n < 250; n++) {
		mqtx_clock_advance_to(t.clock, T0 + n * 4 * MS);
		ok += send_n(&t, 1000, 1);
	}
	assert_int_equal(ok, 134);
	act_stats(&t, &pkts, &drops, &over);
	assert_int_equal(pkts, 250);
	assert_int_equal(over, 116);
	assert_int_equal(drops, 116);
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/* A peak rate over an MTU caps what the main bucket lets through at once: peakrate 2mbit and
 * mtu 2000 is 8 ms of peak tokens, two 1000-byte packets (4 ms each); a packet beyond the MTU
 * never conforms. */
static void test_peak_mtu(void **state)
{
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "filter add dev v0 egress matchall action police rate 1mbit burst 100k "
		    "peakrate 2mbit mtu 2000 conform-exceed drop");
	assert_int_equal(send_n(&t, 1000, 5), 2);
	mqtx_clock_advance_to(t.clock, T0 + 4 * MS);
	assert_int_equal(send_n(&t, 1000, 2), 1);
	mqtx_clock_advance_to(t.clock, T0 + 100 * MS);
	assert_int_equal(send_n(&t, 1900, 1), 1);
	assert_int_equal(send_n(&t, 1990, 1), 0); /* 4 ms of peak tokens left, it needs 7.96 */
	cx_ok(&t.c, "filter del dev v0 egress");
	/* mtu alone: no bucket, the size decides */
	cx_ok(&t.c, "filter add dev v0 egress matchall action police mtu 1000 conform-exceed "
		    "drop");
	assert_int_equal(send_n(&t, 1000, 3), 3);
	assert_int_equal(send_n(&t, 1001, 3), 0);
	assert_int_equal(cx_stats(t.dev).txq.drops[MQTX_DROP_POLICE], 3 + 1 + 1 + 3);
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/* Verdicts: exceed continues to the next priority, conform pipes to the next action; the
 * default exceed verdict, reclassify, loops on an egress filter until the limit drops. */
static void test_verdicts(void **state)
{
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "filter add dev v0 egress prio 1 matchall action police rate 8kbit burst 1000 "
		    "conform-exceed continue/pipe action skbedit queue_mapping 2 pass");
	cx_ok(&t.c, "filter add dev v0 egress prio 2 matchall action skbedit queue_mapping 3 pass");
	assert_int_equal(send_n(&t, 500, 4), 4);
	assert_int_equal(cx_txq_packets(t.dev, 2), 2);
	assert_int_equal(cx_txq_packets(t.dev, 3), 2);
	cx_ok(&t.c, "filter del dev v0 egress");
	cx_ok(&t.c, "filter add dev v0 egress matchall action police rate 8kbit burst 500");
	assert_int_equal(send_n(&t, 500, 2), 1);
	assert_int_equal(cx_stats(t.dev).txq.drops[MQTX_DROP_FILTER], 1);
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/* Policing received traffic: clsact's ingress, counted on the receive side. */
static void test_ingress(void **state)
{
	struct flow f = sized(500);
	struct mqtx_dev_stats st;
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "filter add dev v0 ingress matchall action police rate 8kbit burst 1000 "
		    "conform-exceed drop");
	/* no receive handler: what the policer lets through is dropped as such */
	for (int i = 0; i < 5; i++)
		assert_int_equal(mqtx_dev_receive(t.dev, cx_pkt(&t.c, &f, i)), MQTX_XMIT_DROP);
	st = cx_stats(t.dev);
	assert_int_equal(st.rx_drop_reasons[MQTX_DROP_POLICE], 3);
	assert_int_equal(st.rx_packets, 0);
	assert_int_equal(st.rx_drop_reasons[MQTX_DROP_NO_HANDLER], 2);
	vt_teardown(&t);
}

/*
 * Received frames are counted as Linux's tc sees them, from the network header (the frame less
 * its 14-byte Ethernet header): 500-byte frames weigh 486 bytes. rate 8kbit = 1000 B/s with a
 * 972-byte burst lets exactly two of them through at once (as whole frames only one would
 * fit); the action and clsact count 486 bytes a packet, the one dropped too (Linux's tc_run()
 * counts before the filters). The same frames sent are counted whole.
 */
static void test_ingress_lengths(void **state)
{
	uint64_t bytes, pkts, drops, over;
	struct flow f = sized(500);
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "filter add dev v0 ingress matchall action police rate 8kbit burst 972 "
		    "conform-exceed drop");
	for (int i = 0; i < 3; i++)
		mqtx_dev_receive(t.dev, cx_pkt(&t.c, &f, i));
	assert_int_equal(cx_stats(t.dev).rx_drop_reasons[MQTX_DROP_POLICE], 1);
	hook_stats(&t, "ingress", &bytes, &pkts, &drops, &over);
	assert_int_equal(bytes, 3 * 486);
	assert_int_equal(pkts, 3);
	assert_int_equal(drops, 1);
	assert_int_equal(over, 1);
	cx_ok(&t.c, "-s qdisc show dev v0 clsact");
	assert_non_null(strstr(t.c.out, " Sent 1458 bytes 3 pkt (dropped 1, "));
	cx_ok(&t.c, "filter add dev v0 egress matchall action police rate 8kbit burst 1000 "
		    "conform-exceed drop");
	assert_int_equal(send_n(&t, 500, 3), 2);
	hook_stats(&t, "egress", &bytes, &pkts, &drops, &over);
	assert_int_equal(bytes, 3 * 500);
	assert_int_equal(drops, 1);
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/*
 * pkts_rate 10 pkts_burst 5: each packet costs 100 ms of a 500 ms bucket, full at the start,
 * whatever their size. At T0 five of seven go; 250 ms later the bucket holds 250 ms: two of
 * three; 10 s later it is full again, not beyond: five of seven.
 */
static void test_pkts_bucket(void **state)
{
	uint64_t pkts, drops, over;
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "filter add dev v0 egress matchall action police pkts_rate 10 pkts_burst 5 "
		    "conform-exceed drop/pass");
	assert_int_equal(send_n(&t, 60, 4) + send_n(&t, 1400, 3), 5);
	mqtx_clock_advance_to(t.clock, T0 + 250 * MS);
	assert_int_equal(send_n(&t, 1400, 3), 2);
	mqtx_clock_advance_to(t.clock, T0 + 10250 * MS);
	assert_int_equal(send_n(&t, 100, 7), 5);
	act_stats(&t, &pkts, &drops, &over);
	assert_int_equal(pkts, 17);
	assert_int_equal(drops, 5);
	assert_int_equal(over, 5);
	assert_int_equal(cx_stats(t.dev).txq.drops[MQTX_DROP_POLICE], 5);
	cx_ok(&t.c, "filter show dev v0 egress");
	assert_non_null(strstr(t.c.out, " police 0x1 rate 0bit burst 0b mtu 4096Mb pkts_rate 10 "
					"pkts_burst 5 action drop overhead 0b \n"));
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/*
 * 100 packets every 40 ms (25 a second) at pkts_rate 10 pkts_burst 5: the bucket loses 60 ms
 * a packet until it runs dry, then one packet in two or three conforms; 44 in all, the burst
 * plus the rate over the 3.96 s they span (5 + 39.6, rounded down).
 */
static void test_pkts_arrivals(void **state)
{
	unsigned ok = 0;
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "filter add dev v0 egress matchall action police pkts_rate 10 pkts_burst 5 "
		    "conform-exceed drop");
	for (unsigned n = 0; n < 100; n++) {
		mqtx_clock_advance_to(t.clock, T0 + n * 40 * MS);
		ok += send_n(&t, 200, 1);
	}
	assert_int_equal(ok, 44);
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/*
 * The packet bucket is what tc makes of it: pkts_burst 2 at pkts_rate 3 is sent as the ticks of
 * 666666 us, 666665984 ns, and a packet costs 333333333 ns (psched_pkt2t_ns()), so two at once
 * do not fit: the second fits 682 ns after the first, not 681. An MTU still applies.
 */
static void test_pkts_ticks(void **state)
{
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "filter add dev v0 egress matchall action police pkts_rate 3 pkts_burst 2 "
		    "mtu 1000 conform-exceed drop");
	assert_int_equal(send_n(&t, 100, 2), 1);
	mqtx_clock_advance_to(t.clock, T0 + 681);
	assert_int_equal(send_n(&t, 100, 1), 0);
	mqtx_clock_advance_to(t.clock, T0 + 682);
	assert_int_equal(send_n(&t, 100, 2), 1);
	mqtx_clock_advance_to(t.clock, T0 + 100 * 1000 * MS);
	assert_int_equal(send_n(&t, 1001, 1), 0); /* beyond the MTU: no tokens spent */
	assert_int_equal(send_n(&t, 1000, 1), 1);
	cx_ok(&t.c, "filter show dev v0 egress");
	assert_non_null(strstr(t.c.out, "mtu 1000b pkts_rate 3 pkts_burst 1 action drop "));
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/* An empty packet bucket gets its next token at @when exactly: nothing conforms a nanosecond
 * before, one packet of two at @when. */
static void one_token_at(struct vt *t, uint64_t when)
{
	mqtx_clock_advance_to(t->clock, when - 1);
	assert_int_equal(send_n(t, 100, 1), 0);
	mqtx_clock_advance_to(t->clock, when);
	assert_int_equal(send_n(t, 100, 2), 1);
}

/*
 * "actions replace" of a policer (tcf_police_init()): the packet bucket keeps its tokens and
 * refills from the time of the replace, not from the last conforming packet; the byte bucket
 * starts full. pkts_rate 10: a packet costs 100 ms, pkts_burst 5 is 500 ms.
 */
static void test_replace_tokens(void **state)
{
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "actions add action police pkts_rate 10 pkts_burst 5 conform-exceed drop "
		    "index 1");
	cx_ok(&t.c, "filter add dev v0 egress matchall action police index 1");
	assert_int_equal(send_n(&t, 100, 6), 5); /* the bucket is empty */
	mqtx_clock_advance_to(t.clock, T0 + 250 * MS);
	/* 250 ms of refill are lost: the bucket holds nothing at the replace */
	cx_ok(&t.c, "actions replace action police pkts_rate 10 pkts_burst 5 conform-exceed drop "
		    "index 1");
	assert_int_equal(send_n(&t, 100, 1), 0);
	one_token_at(&t, T0 + 350 * MS);
	/* a packet 2 s on, after the bucket filled, leaves 400 ms in it: a replace 300 ms later
	 * with a deeper burst keeps 400 ms, not 700 and not a full second */
	mqtx_clock_advance_to(t.clock, T0 + 2000 * MS);
	assert_int_equal(send_n(&t, 100, 1), 1);
	mqtx_clock_advance_to(t.clock, T0 + 2300 * MS);
	cx_ok(&t.c, "actions replace action police pkts_rate 10 pkts_burst 10 conform-exceed drop "
		    "index 1");
	assert_int_equal(send_n(&t, 100, 5), 4);
	/* a byte rate instead: its bucket is full at once (1500 B at 1000 B/s) */
	cx_ok(&t.c, "actions replace action police rate 8kbit burst 1500 conform-exceed drop "
		    "index 1");
	assert_int_equal(send_n(&t, 500, 4), 3);
	/* and back to a packet rate: the byte policer left the packet bucket empty */
	mqtx_clock_advance_to(t.clock, T0 + 2400 * MS);
	cx_ok(&t.c, "actions replace action police pkts_rate 10 pkts_burst 5 conform-exceed drop "
		    "index 1");
	one_token_at(&t, T0 + 2500 * MS);
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/* An MTU alone holds no packet tokens: a packet rate it is replaced with starts empty. */
static void test_replace_mtu(void **state)
{
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "actions add action police mtu 1000 conform-exceed drop index 1");
	cx_ok(&t.c, "filter add dev v0 egress matchall action police index 1");
	assert_int_equal(send_n(&t, 100, 3), 3);
	mqtx_clock_advance_to(t.clock, T0 + 50 * MS);
	cx_ok(&t.c, "actions replace action police pkts_rate 10 pkts_burst 5 conform-exceed drop "
		    "index 1");
	assert_int_equal(send_n(&t, 100, 1), 0);
	one_token_at(&t, T0 + 150 * MS);
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/* A policer no packet ran through is replaced as it was created: its buckets full. */
static void test_replace_unused(void **state)
{
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_ok(&t.c, "actions add action police pkts_rate 10 pkts_burst 5 index 1");
	cx_ok(&t.c, "actions replace action police pkts_rate 10 pkts_burst 3 conform-exceed drop "
		    "index 1");
	cx_ok(&t.c, "filter add dev v0 egress matchall action police index 1");
	assert_int_equal(send_n(&t, 100, 4), 3);
	cx_conserved(t.dev);
	vt_teardown(&t);
}

/* tc's words and checks of the packet rate; a burst of no tick is the kernel's to refuse. */
static void test_pkts_words(void **state)
{
	struct vt t;

	(void)state;
	vt_setup(&t);
	cx_rc(&t.c, 1, "filter add dev v0 egress matchall action police pkts_rate 1000");
	assert_non_null(strstr(t.c.out, "'pkts_burst' requires 'pkts_rate'.\n"));
	cx_rc(&t.c, 1, "filter add dev v0 egress matchall action police pkts_burst 10");
	assert_non_null(strstr(t.c.out, "'rate' or 'avrate' or 'mtu' or 'pkts_rate' MUST"));
	cx_rc(&t.c, 1,
	      "filter add dev v0 egress matchall action police rate 1kbit burst 10k pkts_rate "
	      "1000 pkts_burst 200");
	assert_non_null(strstr(t.c.out, "'rate' and 'pkts_rate' are not allowed in same action."));
	cx_rc(&t.c, 1,
	      "filter add dev v0 egress matchall action police pkts_rate 9 pkts_burst 2 peakrate "
	      "1mbit mtu 1000");
	assert_non_null(strstr(t.c.out, "'peakrate' requires 'rate'.\n"));
	cx_rc(&t.c, 255, "filter add dev v0 egress matchall action police pkts_rate 0x10");
	assert_non_null(strstr(t.c.out, "Error: argument \"0x10\" is wrong: pkts_rate"));
	cx_rc(&t.c, 255, "filter add dev v0 egress matchall action police pkts_rate 9 pkts_r 9");
	assert_non_null(strstr(t.c.out, "Error: duplicate \"pkts_rate\": \"9\" is the second"));
	cx_rc(&t.c, 2,
	      "filter add dev v0 egress matchall action police pkts_rate 1000000000 pkts_burst 1");
	assert_non_null(strstr(t.c.out, "RTNETLINK answers: Numerical result out of range"));
	cx_ok(&t.c, "filter show dev v0 egress");
	assert_string_equal(t.c.out, "");
	vt_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket),	       cmocka_unit_test(test_arrivals),
		cmocka_unit_test(test_peak_mtu),       cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_ingress),	       cmocka_unit_test(test_ingress_lengths),
		cmocka_unit_test(test_pkts_bucket),    cmocka_unit_test(test_pkts_arrivals),
		cmocka_unit_test(test_pkts_ticks),     cmocka_unit_test(test_pkts_words),
		cmocka_unit_test(test_replace_tokens), cmocka_unit_test(test_replace_unused),
		cmocka_unit_test(test_replace_mtu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
