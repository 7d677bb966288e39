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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_steered_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
