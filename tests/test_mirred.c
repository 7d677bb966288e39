// SPDX-License-Identifier: MIT
/* mirred: redirects and mirrors to another device, from the egress hook, a classful qdisc and
 * the ingress side; every flow in order on the other device; loops cut at the redirect limit;
 * a device a mirred action sends to is not deleted; every packet accounted for on both; to a
 * shared block, every port but the one the packet came from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cls_fixture.h"
#include "rec_driver.h"

#define FLOWS  32
#define ROUNDS 20

static struct mqtx_pkt *flow_pkt(struct cx *c, unsigned f, unsigned round, uint8_t proto)
{
	struct flow fl = { "10.0.0.1", "10.0.0.2", (uint16_t)(1000 + f), 80, proto };
	struct mqtx_pkt *p = cx_pkt(c, &fl, round);

	p->user = (uint64_t)f << 32 | round;
	return p;
}

static struct mqtx_dev_stats stats(struct mqtx_dev *dev)
{
	return cx_stats(dev);
}

/* UDP is redirected to rec0 and leaves there, each flow on one queue in order; TCP stays. */
static void test_redirect_egress(void **state)
{
	struct mqtx_pkt *burst[FLOWS];
	struct mqtx_dev *rec0;
	struct mqtx_dev_stats st;
	struct cx c;

	(void)state;
	cx_setup(&c);
	rec0 = rec_dev(c.ctl, "rec0");
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress protocol ip prio 1 u32 match ip protocol 17 0xff "
		  "action mirred egress redirect dev rec0");
	for (unsigned r = 0; r < ROUNDS; r++) {
		for (unsigned f = 0; f < FLOWS; f++)
			assert_int_equal(mqtx_dev_xmit(c.dev, flow_pkt(&c, f, r, 17)),
					 MQTX_XMIT_SUCCESS);
		/* bursts too, half UDP, half TCP */
		for (unsigned f = 0; f < FLOWS; f++)
			burst[f] = flow_pkt(&c, FLOWS + f, r, f % 2 ? 6 : 17);
		assert_int_equal(mqtx_dev_xmit_burst(c.dev, burst, FLOWS), FLOWS);
	}
	st = stats(c.dev);
	assert_int_equal(st.xmit, 2 * FLOWS * ROUNDS);
	assert_int_equal(st.txq.drops[MQTX_DROP_REDIRECT], FLOWS * ROUNDS * 3 / 2);
	assert_int_equal(st.txq.packets, FLOWS * ROUNDS / 2);
	cx_conserved(c.dev);
	assert_int_equal(stats(rec0).xmit, FLOWS * ROUNDS * 3 / 2);
	assert_int_equal(atomic_load(&rec(rec0)->taken), FLOWS * ROUNDS * 3 / 2);
	assert_int_equal(atomic_load(&rec(rec0)->bad_order), 0);
	cx_conserved(rec0);
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "mirred (Egress Redirect to device rec0) stolen\n\tindex 1 "
				      "ref 1 bind 1\n\tAction statistics:\n\tSent 57600 bytes 960 "
				      "pkt (dropped 0, overlimits 0 requeues 0) \n"));
	cx_teardown(&c);
}

/* A mirror sends a copy and lets the packet go on; several mirrors send several copies. */
static void test_mirror(void **state)
{
	struct mqtx_dev *rec0;
	struct cx c;

	(void)state;
	cx_setup(&c);
	rec0 = rec_dev(c.ctl, "rec0");
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress prio 1 matchall action mirred egress mirror dev rec0 "
		  "action mirred egress mirror dev lo1 pipe action skbedit priority 7");
	for (unsigned f = 0; f < FLOWS; f++)
		assert_int_equal(mqtx_dev_xmit(c.dev, flow_pkt(&c, f, 0, 17)), MQTX_XMIT_SUCCESS);
	assert_int_equal(stats(c.dev).txq.packets, FLOWS);
	assert_int_equal(stats(rec0).txq.packets, FLOWS);
	assert_int_equal(stats(mqtx_ctl_dev(c.ctl, "lo1")).txq.packets, FLOWS);
	cx_conserved(c.dev);
	cx_conserved(rec0);
	cx_ok(&c, "filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "action order 2: mirred (Egress Mirror to device lo1) pipe\n"
				      "\tindex 2 ref 1 bind 1\n"));
	cx_teardown(&c);
}

/* Received on eth0, sent on rec0 (what ifb is for), counted as redirected on eth0's receive. */
static void test_ingress_to_egress(void **state)
{
	struct mqtx_dev_stats st;
	struct mqtx_dev *rec0;
	struct cx c;

	(void)state;
	cx_setup(&c);
	rec0 = rec_dev(c.ctl, "rec0");
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 ingress matchall action mirred egress redirect dev rec0");
	for (unsigned r = 0; r < ROUNDS; r++)
		for (unsigned f = 0; f < FLOWS; f++)
			assert_int_equal(mqtx_dev_receive(c.dev, flow_pkt(&c, f, r, 17)),
					 MQTX_XMIT_SUCCESS);
	st = stats(c.dev);
	assert_int_equal(st.rx_drop_reasons[MQTX_DROP_REDIRECT], FLOWS * ROUNDS);
	assert_int_equal(st.rx_packets, 0);
	assert_int_equal(st.xmit, 0);
	assert_int_equal(atomic_load(&rec(rec0)->taken), FLOWS * ROUNDS);
	assert_int_equal(atomic_load(&rec(rec0)->bad_order), 0);
	cx_conserved(rec0);
	cx_teardown(&c);
}

struct rx_count {
	atomic_uint n;
};

static void rx_count(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	(void)dev;
	atomic_fetch_add(&((struct rx_count *)arg)->n, 1);
	mqtx_pkt_free(pkt);
}

/* Sent on eth0, a copy received on lo1. */
static void test_egress_to_ingress(void **state)
{
	struct mqtx_dev *lo1;
	struct rx_count rc = { 0 };
	struct cx c;

	(void)state;
	cx_setup(&c);
	lo1 = mqtx_ctl_dev(c.ctl, "lo1");
	mqtx_dev_set_rx_handler(lo1, rx_count, &rc);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress matchall action mirred ingress mirror dev lo1");
	assert_int_equal(cx_send(&c, c.dev, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 2 }, 25),
			 25);
	assert_int_equal(atomic_load(&rc.n), 25);
	assert_int_equal(stats(lo1).rx_packets, 25);
	assert_int_equal(stats(c.dev).txq.packets, 25);
	cx_conserved(c.dev);
	mqtx_dev_set_rx_handler(lo1, NULL, NULL);
	cx_teardown(&c);
}

/* eth0 and lo1 redirect to each other: each packet bounces until its 8th redirect, then the
 * filter that would redirect it again drops it as a loop. */
static void test_loop(void **state)
{
	struct mqtx_dev_stats a, b;
	struct mqtx_dev *lo1;
	struct cx c;

	(void)state;
	cx_setup(&c);
	lo1 = mqtx_ctl_dev(c.ctl, "lo1");
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "qdisc add dev lo1 clsact");
	cx_ok(&c, "filter add dev eth0 egress matchall action mirred egress redirect dev lo1");
	cx_ok(&c, "filter add dev lo1 egress matchall action mirred egress redirect dev eth0");
	assert_int_equal(cx_send(&c, c.dev, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 2 }, 10),
			 10);
	a = stats(c.dev);
	b = stats(lo1);
	assert_int_equal(a.xmit, 50);
	assert_int_equal(a.txq.drops[MQTX_DROP_REDIRECT], 40);
	assert_int_equal(a.txq.drops[MQTX_DROP_RECURSION], 10);
	assert_int_equal(b.xmit, 40);
	assert_int_equal(b.txq.drops[MQTX_DROP_REDIRECT], 40);
	cx_conserved(c.dev);
	cx_conserved(lo1);
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "Sent 3000 bytes 50 pkt (dropped 10, overlimits 10 "));
	cx_teardown(&c);
}

/* A classful qdisc's filter redirects back to its own device: the qdisc's lock is not held
 * when the packet comes back (it would deadlock), and the loop ends the same way. */
static void test_classful_to_itself(void **state)
{
	struct mqtx_dev_stats a;
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 root handle 1: prio");
	cx_ok(&c, "filter add dev eth0 parent 1: matchall action mirred egress redirect dev eth0");
	assert_int_equal(cx_send(&c, c.dev, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 2 }, 10),
			 10);
	a = stats(c.dev);
	assert_int_equal(a.xmit, 90);
	assert_int_equal(a.txq.drops[MQTX_DROP_REDIRECT], 80);
	assert_int_equal(a.txq.drops[MQTX_DROP_RECURSION], 10);
	cx_conserved(c.dev);
	cx_teardown(&c);
}

/* A redirect to a device that is down drops (a mirror only counts an overlimit). */
static void test_down(void **state)
{
	struct mqtx_dev_stats a;
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress prio 1 protocol ip u32 match ip dport 1 0xffff "
		  "action mirred egress mirror dev down0");
	cx_ok(&c, "filter add dev eth0 egress prio 2 matchall action mirred egress redirect dev "
		  "down0");
	assert_int_equal(cx_send(&c, c.dev, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 1 }, 3), 3);
	assert_int_equal(cx_send(&c, c.dev, &(struct flow){ "10.0.0.1", "10.0.0.2", 1, 2 }, 4), 0);
	a = stats(c.dev);
	assert_int_equal(a.txq.packets, 3);
	assert_int_equal(a.txq.drops[MQTX_DROP_FILTER], 4);
	cx_conserved(c.dev);
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "Sent 180 bytes 3 pkt (dropped 0, overlimits 3 "));
	assert_non_null(strstr(c.out, "Sent 240 bytes 4 pkt (dropped 4, overlimits 4 "));
	cx_teardown(&c);
}

static void test_words(void **state)
{
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_rc(&c, 1,
	      "filter add dev eth0 egress matchall action mirred egress redirect dev nosuch");
	assert_non_null(strstr(c.out, "Cannot find device \"nosuch\"\n"));
	cx_rc(&c, 1, "filter add dev eth0 egress matchall action mirred sideways redirect dev lo1");
	assert_non_null(
		strstr(c.out, "mirred option not supported sideways\nbad action parsing\n"));
	cx_rc(&c, 1,
	      "filter add dev eth0 egress matchall action mirred egress ingress redirect dev lo1");
	assert_non_null(strstr(c.out, "Can't have both ingress and egress\n"));
	cx_rc(&c, 1,
	      "filter add dev eth0 egress matchall action mirred egress mirror redirect dev lo1");
	assert_non_null(strstr(c.out, "Can't have both mirror and redir\n"));
	cx_rc(&c, 255, "filter add dev eth0 egress matchall action mirred egress redirect");
	assert_non_null(strstr(c.out, "Command line is not complete"));
	cx_rc(&c, 255, "filter add dev eth0 egress matchall action mirred help");
	cx_rc(&c, 2, "filter add dev eth0 egress matchall action mirred index 3");
	cx_ok(&c, "filter show dev eth0 egress");
	assert_string_equal(c.out, "");
	/* a redirect takes no verdict word: "drop" is another action */
	cx_ok(&c, "filter add dev eth0 egress matchall action mirred egress redirect dev lo1 drop");
	cx_ok(&c, "filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "action order 2: gact action drop"));
	/* the device stays while a filter sends to it */
	cx_rc(&c, 2, "dev del lo1");
	assert_non_null(strstr(c.out, "lo1 is the device of a mirred action"));
	cx_ok(&c, "filter del dev eth0 egress");
	cx_ok(&c, "dev del lo1");
	cx_teardown(&c);
}

/* Sent on eth0 with "mirred egress mirror|redirect blockid 21", where eth0, rec0 and rec1 are
 * the ports of block 21: each packet goes to rec0 and rec1, not back to eth0. */
static void block3(struct cx *c, struct mqtx_dev **r0, struct mqtx_dev **r1)
{
	*r0 = rec_dev(c->ctl, "rec0");
	*r1 = rec_dev(c->ctl, "rec1");
	cx_ok(c, "qdisc add dev eth0 ingress_block 21 clsact");
	cx_ok(c, "qdisc add dev rec0 ingress_block 21 clsact");
	cx_ok(c, "qdisc add dev rec1 ingress_block 21 egress_block 22 clsact");
}

static const struct flow udp12 = { "10.0.0.1", "10.0.0.2", 1, 2 };

/* A mirror to a block of three ports from one of them: two copies, the packet goes on. */
static void test_block_mirror(void **state)
{
	struct mqtx_dev *r0, *r1;
	struct cx c;

	(void)state;
	cx_setup(&c);
	block3(&c, &r0, &r1);
	cx_ok(&c, "filter add dev eth0 egress matchall action mirred egress mirror blockid 21");
	assert_int_equal(cx_send(&c, c.dev, &udp12, 25), 25);
	assert_int_equal(stats(c.dev).xmit, 25);
	assert_int_equal(stats(c.dev).txq.packets, 25);
	assert_int_equal(stats(r0).xmit, 25);
	assert_int_equal(atomic_load(&rec(r0)->taken), 25);
	assert_int_equal(stats(r1).xmit, 25);
	assert_int_equal(atomic_load(&rec(r1)->taken), 25);
	cx_conserved(c.dev);
	cx_conserved(r0);
	cx_conserved(r1);
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "mirred (Egress Mirror to blockid 21) pipe\n\tindex 1 ref 1 "
				      "bind 1\n\tAction statistics:\n\tSent 1500 bytes 25 pkt "
				      "(dropped 0, overlimits 0 "));
	/* a port that leaves gets nothing more */
	cx_ok(&c, "qdisc del dev rec1 clsact");
	assert_int_equal(cx_send(&c, c.dev, &udp12, 5), 5);
	assert_int_equal(stats(r0).xmit, 30);
	assert_int_equal(stats(r1).xmit, 25);
	/* a port that is down counts an overlimit; the others still get their copy */
	cx_ok(&c, "qdisc add dev down0 ingress_block 21 clsact");
	assert_int_equal(cx_send(&c, c.dev, &udp12, 4), 4);
	assert_int_equal(stats(r0).xmit, 34);
	assert_int_equal(stats(mqtx_ctl_dev(c.ctl, "down0")).xmit, 0);
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "Sent 2040 bytes 34 pkt (dropped 0, overlimits 4 "));
	cx_teardown(&c);
}

/* A redirect to the block: a copy to every other port but the last, the packet to the last. */
static void test_block_redirect(void **state)
{
	struct mqtx_dev_stats st;
	struct mqtx_dev *r0, *r1;
	struct cx c;

	(void)state;
	cx_setup(&c);
	block3(&c, &r0, &r1);
	cx_ok(&c, "filter add dev eth0 egress matchall action mirred egress redirect blockid 21");
	assert_int_equal(cx_send(&c, c.dev, &udp12, 10), 10);
	st = stats(c.dev);
	assert_int_equal(st.txq.packets, 0);
	assert_int_equal(st.txq.drops[MQTX_DROP_REDIRECT], 10);
	assert_int_equal(atomic_load(&rec(r0)->taken), 10);
	assert_int_equal(atomic_load(&rec(r1)->taken), 10);
	assert_int_equal(atomic_load(&rec(r1)->bad_order), 0);
	cx_conserved(c.dev);
	cx_conserved(r0);
	cx_conserved(r1);
	cx_ok(&c, "-j filter show dev eth0 egress");
	assert_non_null(strstr(c.out,
			       "\"mirred_action\":\"redirect\",\"direction\":\"egress\","
			       "\"to_blockid\":21,\"control_action\":{\"type\":\"stolen\"}"));
	cx_teardown(&c);
}

/* Received on a port whose shared block mirrors to itself: the other ports transmit a copy,
 * before the packet is delivered where it came. */
struct rx_seen {
	struct mqtx_dev *other;
	unsigned n, ahead; /* packets delivered; those whose copy had left @other before */
};

static void rx_seen(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	struct rx_seen *s = arg;

	(void)dev;
	s->ahead += stats(s->other).txq.packets == ++s->n;
	mqtx_pkt_free(pkt);
}

static void test_block_from_ingress(void **state)
{
	struct rx_seen n0 = { 0 };
	struct mqtx_dev *r0, *r1;
	struct cx c;

	(void)state;
	cx_setup(&c);
	block3(&c, &r0, &r1);
	n0.other = c.dev;
	mqtx_dev_set_rx_handler(r0, rx_seen, &n0);
	cx_ok(&c, "filter add block 21 matchall action mirred egress mirror blockid 21");
	for (unsigned i = 0; i < 7; i++)
		assert_int_equal(mqtx_dev_receive(r0, cx_pkt(&c, &udp12, i)), MQTX_XMIT_SUCCESS);
	assert_int_equal(n0.n, 7);
	/* the copies left before the packet was delivered, as Linux's mirred sends at once */
	assert_int_equal(n0.ahead, 7);
	assert_int_equal(stats(c.dev).txq.packets, 7);
	assert_int_equal(stats(r1).xmit, 7);
	assert_int_equal(stats(r0).xmit, 0);
	mqtx_dev_set_rx_handler(r0, NULL, NULL);
	cx_teardown(&c);
}

/* "mirred ingress mirror blockid": each other port receives a copy. */
static void test_block_ingress(void **state)
{
	struct rx_count n0 = { 0 }, n1 = { 0 };
	struct mqtx_dev *r0, *r1;
	struct cx c;

	(void)state;
	cx_setup(&c);
	block3(&c, &r0, &r1);
	mqtx_dev_set_rx_handler(r0, rx_count, &n0);
	mqtx_dev_set_rx_handler(r1, rx_count, &n1);
	mqtx_dev_set_rx_handler(c.dev, rx_count, &n1); /* counts there if sent back */
	cx_ok(&c, "filter add dev eth0 egress matchall action mirred ingress mirror blockid 21");
	assert_int_equal(cx_send(&c, c.dev, &udp12, 6), 6);
	assert_int_equal(atomic_load(&n0.n), 6);
	assert_int_equal(atomic_load(&n1.n), 6);
	assert_int_equal(stats(r0).rx_packets, 6);
	assert_int_equal(stats(c.dev).rx_packets, 0);
	assert_int_equal(stats(c.dev).txq.packets, 6);
	mqtx_dev_set_rx_handler(r0, NULL, NULL);
	mqtx_dev_set_rx_handler(r1, NULL, NULL);
	mqtx_dev_set_rx_handler(c.dev, NULL, NULL);
	cx_teardown(&c);
}

/* No such block, or none but the device the packet is on: a mirror goes on, a redirect drops;
 * only a block with no port at all counts an overlimit (tcf_blockcast()). */
static void test_block_empty(void **state)
{
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress prio 1 matchall action mirred egress mirror blockid "
		  "99 pipe action mirred egress redirect blockid 99");
	assert_int_equal(cx_send(&c, c.dev, &udp12, 3), 0);
	assert_int_equal(stats(c.dev).txq.drops[MQTX_DROP_FILTER], 3);
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "Sent 180 bytes 3 pkt (dropped 0, overlimits 3 "));
	assert_non_null(strstr(c.out, "Sent 180 bytes 3 pkt (dropped 3, overlimits 3 "));
	cx_ok(&c, "qdisc del dev eth0 clsact");
	/* eth0 alone in block 21: nowhere to go, a drop without an overlimit */
	cx_ok(&c, "qdisc add dev eth0 ingress_block 21 clsact");
	cx_ok(&c, "filter add dev eth0 egress matchall action mirred egress redirect blockid 21");
	cx_ok(&c, "filter test dev eth0 --src 10.0.0.1:1 --dst 10.0.0.2:2");
	assert_non_null(strstr(c.out, "-> drop actions: mirred egress redirect blockid 21\n"));
	assert_int_equal(cx_send(&c, c.dev, &udp12, 2), 0);
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "Sent 120 bytes 2 pkt (dropped 2, overlimits 0 "));
	cx_conserved(c.dev);
	/* with another port, "filter test" says where it would go */
	cx_ok(&c, "qdisc add dev lo1 ingress_block 21 clsact");
	cx_ok(&c, "filter test dev eth0 --src 10.0.0.1:1 --dst 10.0.0.2:2");
	assert_non_null(strstr(c.out, "verdict stolen"));
	cx_teardown(&c);
}

/* The block's words, and a device that holds a block twice. */
static void test_block_words(void **state)
{
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_rc(&c, 1,
	      "filter add dev eth0 egress matchall action mirred egress redirect blockid 21 dev "
	      "lo1");
	assert_non_null(strstr(c.out, "blockid and device are mutually exclusive.\n"));
	cx_rc(&c, 1, "filter add dev eth0 egress matchall action mirred egress redirect blockid 0");
	assert_non_null(strstr(c.out, "invalid block ID\nbad action parsing\n"));
	cx_rc(&c, 1, "filter add dev eth0 egress matchall action mirred egress mirror blockid 0x");
	cx_rc(&c, 255, "filter add dev eth0 egress matchall action mirred egress mirror blockid");
	cx_ok(&c, "filter add dev eth0 egress matchall action mirred egress mirror blockid 0x15");
	cx_ok(&c, "filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "(Egress Mirror to blockid 21) pipe"));
	cx_rc(&c, 2, "qdisc add dev lo1 ingress_block 5 egress_block 5 clsact");
	assert_non_null(strstr(c.out, "Error: block dev insert failed."));
	cx_ok(&c, "qdisc add dev lo1 ingress_block 5 egress_block 6 clsact");
	cx_teardown(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redirect_egress),
		cmocka_unit_test(test_mirror),
		cmocka_unit_test(test_ingress_to_egress),
		cmocka_unit_test(test_egress_to_ingress),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_classful_to_itself),
		cmocka_unit_test(test_down),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_block_mirror),
		cmocka_unit_test(test_block_redirect),
		cmocka_unit_test(test_block_from_ingress),
		cmocka_unit_test(test_block_ingress),
		cmocka_unit_test(test_block_empty),
		cmocka_unit_test(test_block_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
