// SPDX-License-Identifier: MIT
/* Steering: flows an egress filter sends to a queue (skbedit queue_mapping) leave on that queue
 * only, each flow in the order it was sent, single packets and bursts alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cls_fixture.h"
#include "rec_driver.h"

#define FLOWS  64
#define ROUNDS 50

/* Flow f: UDP from port 1000 + f to 5000 (f % 4 == 0), 6000 (f % 4 == 1) or 7000 + f. */
static struct flow flow_of(unsigned f)
{
	uint16_t dport = f % 4 == 0 ? 5000 : f % 4 == 1 ? 6000 : (uint16_t)(7000 + f);

	return (struct flow){ "10.0.0.1", "10.0.0.2", (uint16_t)(1000 + f), dport };
}

static struct mqtx_pkt *flow_pkt(struct cx *c, unsigned f, unsigned round)
{
	struct flow fl = flow_of(f);
	struct mqtx_pkt *p = cx_pkt(c, &fl, round);

	p->user = (uint64_t)f << 32 | round;
	return p;
}

static void check(struct cx *c, struct mqtx_dev *dev)
{
	struct rec_priv *r = rec(dev);

	assert_int_equal(atomic_load(&r->bad_order), 0);
	assert_int_equal(atomic_load(&r->moved), 0);
	assert_int_equal(atomic_load(&r->taken), FLOWS * ROUNDS);
	for (unsigned f = 0; f < FLOWS; f++) {
		assert_int_equal(r->flow[f].count, ROUNDS);
		if (f % 4 == 0)
			assert_int_equal(r->flow[f].queue, 2);
		else if (f % 4 == 1)
			assert_int_equal(r->flow[f].queue, 3);
	}
	cx_conserved(dev);
	cx_ok(c, "-s filter show dev rec0 egress");
	/* each rule matched its 16 flows' packets, no more */
	assert_non_null(strstr(c->out, "handle 0x1 \n  eth_type ipv4\n  ip_proto udp\n  dst_port "
				       "5000\n  not_in_hw (rule hit 800)\n"));
	assert_non_null(strstr(c->out, "dst_port 6000\n  not_in_hw (rule hit 800)\n"));
}

static void setup_rules(struct cx *c)
{
	cx_ok(c, "qdisc add dev rec0 clsact");
	cx_ok(c, "filter add dev rec0 egress protocol ip prio 1 flower ip_proto udp dst_port 5000 "
		 "action skbedit queue_mapping 2");
	cx_ok(c, "filter add dev rec0 egress protocol ip prio 1 flower ip_proto udp dst_port 6000 "
		 "action skbedit queue_mapping 3");
}

static void test_single(void **state)
{
	struct mqtx_dev *dev;
	struct cx c;

	(void)state;
	cx_setup(&c);
	dev = rec_dev(c.ctl, "rec0");
	setup_rules(&c);
	for (unsigned round = 0; round < ROUNDS; round++)
		for (unsigned f = 0; f < FLOWS; f++)
			assert_int_equal(mqtx_dev_xmit(dev, flow_pkt(&c, f, round)),
					 MQTX_XMIT_SUCCESS);
	check(&c, dev);
	cx_teardown(&c);
}

static void test_bursts(void **state)
{
	struct mqtx_pkt *pkts[FLOWS];
	struct mqtx_dev *dev;
	struct cx c;

	(void)state;
	cx_setup(&c);
	dev = rec_dev(c.ctl, "rec0");
	setup_rules(&c);
	/* each burst holds every flow once; the next round's packets follow in the next one */
	for (unsigned round = 0; round < ROUNDS; round++) {
		for (unsigned f = 0; f < FLOWS; f++)
			pkts[f] = flow_pkt(&c, f, round);
		assert_int_equal(mqtx_dev_xmit_burst(dev, pkts, FLOWS), FLOWS);
	}
	check(&c, dev);
	cx_teardown(&c);
}

/* Without the rules the flows spread by hash; with them only the steered ones move. */
static void test_steered_only(void **state)
{
	struct mqtx_dev *dev;
	struct cx c;
	int before[FLOWS];

	(void)state;
	cx_setup(&c);
	dev = rec_dev(c.ctl, "rec0");
	for (unsigned f = 0; f < FLOWS; f++)
		mqtx_dev_xmit(dev, flow_pkt(&c, f, 0));
	for (unsigned f = 0; f < FLOWS; f++)
		before[f] = rec(dev)->flow[f].queue;
	setup_rules(&c);
	rec(dev)->moves_ok = true;
	for (unsigned f = 0; f < FLOWS; f++)
		mqtx_dev_xmit(dev, flow_pkt(&c, f, 1));
	for (unsigned f = 0; f < FLOWS; f++) {
		int want = f % 4 == 0 ? 2 : f % 4 == 1 ? 3 : before[f];

		assert_int_equal(rec(dev)->flow[f].queue, want);
	}
	cx_conserved(dev);
	cx_teardown(&c);
}

/* mqprio's filters choose a queue (class 1:q+1) or a traffic class (1:ffe0+tc, the flow hash
 * spreading within it) before selection; a queue clsact's filters chose stands. */
static void test_mqprio_filters(void **state)
{
	struct mqtx_dev_stats st;
	struct mqtx_dev *dev;
	struct rec_priv *r;
	unsigned tcp_q[FLOWS] = { 0 };
	struct cx c;

	(void)state;
	cx_setup(&c);
	dev = rec_dev(c.ctl, "rec0");
	r = rec(dev);
	cx_ok(&c, "qdisc replace dev rec0 root handle 1: mqprio num_tc 2 map 0 0 0 0 1 1 1 1 "
		  "queues 2@0 2@2 hw 0");
	cx_ok(&c, "filter add dev rec0 parent 1: protocol ip prio 1 flower ip_proto udp dst_port "
		  "5000 classid 1:2");
	cx_ok(&c, "filter add dev rec0 parent 1: protocol ip prio 2 flower ip_proto tcp classid "
		  "1:ffe1");
	cx_ok(&c, "filter add dev rec0 parent 1: protocol ip prio 3 flower ip_proto udp dst_port "
		  "6000 action drop");
	cx_ok(&c, "qdisc add dev rec0 clsact");
	cx_ok(&c, "filter add dev rec0 egress protocol ip flower ip_proto udp dst_port 7000 action "
		  "skbedit queue_mapping 3");
	for (unsigned round = 0; round < ROUNDS; round++) {
		for (unsigned f = 0; f < FLOWS; f++) {
			struct flow fl = { "10.0.0.1", "10.0.0.2", (uint16_t)(1000 + f),
					   (uint16_t)(f % 4 == 0   ? 5000
						      : f % 4 == 1 ? 6000
						      : f % 4 == 2 ? 7000
								   : 8000),
					   (uint8_t)(f % 4 == 3 ? 6 : 17) };
			struct mqtx_pkt *p = cx_pkt(&c, &fl, round);

			p->user = (uint64_t)f << 32 | round;
			mqtx_dev_xmit(dev, p);
		}
	}
	assert_int_equal(atomic_load(&r->bad_order), 0);
	for (unsigned f = 0; f < FLOWS; f++) {
		if (f % 4 == 0)
			assert_int_equal(r->flow[f].queue, 1);
		else if (f % 4 == 1)
			assert_int_equal(r->flow[f].count, 0);
		else if (f % 4 == 2)
			assert_int_equal(r->flow[f].queue, 3);
		else
			tcp_q[r->flow[f].queue]++;
	}
	/* TCP: traffic class 1, both of its queues and no other */
	assert_int_equal(tcp_q[0] + tcp_q[1], 0);
	assert_true(tcp_q[2] > 0 && tcp_q[3] > 0);
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.txq.drops[MQTX_DROP_FILTER], FLOWS / 4 * ROUNDS);
	cx_conserved(dev);
	/* a new root has filters of its own: none */
	cx_ok(&c, "qdisc replace dev rec0 root handle 2: mqprio num_tc 2 map 0 0 0 0 1 1 1 1 "
		  "queues 2@0 2@2 hw 0");
	cx_ok(&c, "filter show dev rec0 parent 2:");
	assert_string_equal(c.out, "");
	cx_rc(&c, 2, "filter add dev rec0 parent 2:1 matchall classid 2:1");
	assert_non_null(strstr(c.out, "mqprio: filters go on the qdisc (parent 2:)"));
	cx_teardown(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_steered_only),
		cmocka_unit_test(test_mqprio_filters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
