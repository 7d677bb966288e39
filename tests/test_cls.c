// SPDX-License-Identifier: MIT
/* Filters: clsact's hooks, verdicts and their order, chains, classful qdiscs' classes, shared
 * blocks, counters, and the accounting of what filters drop. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cls_fixture.h"
#include "core/core.h"
#include "sched/qtree.h"

static const struct flow udp1 = { "10.1.0.1", "10.2.0.1", 1000, 53 };

/* Drops of @dev for @r, over every queue. */
static uint64_t drops(struct mqtx_dev *dev, enum mqtx_drop_reason r)
{
	return cx_stats(dev).txq.drops[r];
}

static void test_matchall_drop(void **state)
{
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress matchall action drop");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 20), 0);
	assert_int_equal(drops(c.dev, MQTX_DROP_FILTER), 20);
	assert_int_equal(cx_stats(c.dev).txq.packets, 0);
	cx_conserved(c.dev);
	/* the action's and the rule's counters */
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_non_null(strstr(c.out, "not_in_hw (rule hit 20)\n"));
	assert_non_null(strstr(c.out, "\tSent 1200 bytes 20 pkt (dropped 20, overlimits 0 requeues "
				      "0) \n")); /* 60-byte frames */
	/* deleting the filter lets traffic through; deleting clsact removes the hook */
	cx_ok(&c, "filter del dev eth0 egress");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 5), 5);
	cx_ok(&c, "qdisc del dev eth0 clsact");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 5), 5);
	assert_int_equal(cx_stats(c.dev).txq.packets, 10);
	cx_conserved(c.dev);
	cx_teardown(&c);
}

/* Lower priorities first; continue goes on to the next; pipe runs the next action. */
static void test_verdict_order(void **state)
{
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress prio 10 matchall action drop");
	cx_ok(&c, "filter add dev eth0 egress prio 5 matchall action pass");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 3), 3);
	cx_ok(&c, "filter replace dev eth0 egress prio 5 handle 1 matchall action continue");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 4), 0);
	cx_ok(&c,
	      "filter replace dev eth0 egress prio 5 handle 1 matchall action pipe action pass");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 2), 2);
	/* a protocol the frame does not have is skipped */
	cx_ok(&c, "filter del dev eth0 egress prio 5");
	cx_ok(&c, "filter add dev eth0 egress prio 5 protocol ipv6 matchall action pass");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 1), 0);
	assert_int_equal(drops(c.dev, MQTX_DROP_FILTER), 5);
	assert_int_equal(cx_stats(c.dev).txq.packets, 5);
	cx_conserved(c.dev);
	cx_teardown(&c);
}

/* goto chain N goes on at chain N; an empty chain matches nothing; reclassify loops are cut. */
static void test_chains(void **state)
{
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress prio 1 matchall action goto chain 7");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 2), 2); /* chain 7 is empty */
	cx_ok(&c, "filter add dev eth0 egress chain 7 prio 3 matchall action drop");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 3), 0);
	cx_ok(&c, "filter show dev eth0 egress chain 7");
	assert_string_equal(c.out, "filter protocol all pref 3 matchall \n"
				   "filter protocol all pref 3 matchall handle 0x1 \n"
				   "  not_in_hw\n"
				   "\taction order 1: gact action drop\n"
				   "\t random type none pass val 0\n"
				   "\t index 2 ref 1 bind 1\n"
				   "\tused_hw_stats disabled\n"
				   "\n");
	/* reclassify starts again at chain 0: forever, so the loop limit drops it */
	cx_ok(&c, "filter replace dev eth0 egress prio 1 handle 1 matchall action reclassify");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 4), 0);
	assert_int_equal(drops(c.dev, MQTX_DROP_FILTER), 7);
	/* jump N counts from the start of the list (tcf_action_exec()): jump 2 skips the drop,
	 * jump 1 lands on it */
	cx_ok(&c, "filter replace dev eth0 egress prio 1 handle 1 matchall action jump 2 "
		  "action drop action pass");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 2), 2);
	cx_ok(&c, "filter replace dev eth0 egress prio 1 handle 1 matchall action jump 1 "
		  "action drop action pass");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 2), 0);
	cx_conserved(c.dev);
	cx_teardown(&c);
}

/* Packets of band @b of @prio (its child's counters). */
static uint64_t band_packets(struct mqtx_qdisc *prio, uint32_t b)
{
	return prio->ops->cl_ops->leaf(prio, b + 1)->packets;
}

/* A prio's filters choose its band: classid minor - 1; none matching: the priomap. */
static void test_prio_classid(void **state)
{
	struct mqtx_qdisc *prio;
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 root handle 1: prio");
	cx_ok(&c, "filter add dev eth0 parent 1: protocol ip prio 1 matchall classid 1:3");
	prio = mqtx__qtree_root(c.dev);
	assert_int_equal(cx_send(&c, c.dev, &udp1, 6), 6);
	assert_int_equal(band_packets(prio, 2), 6);
	/* a class beyond the bands is priority 0's band (1), as Linux */
	cx_ok(&c, "filter replace dev eth0 parent 1: protocol ip prio 1 handle 1 matchall classid "
		  "1:9");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 2), 2);
	assert_int_equal(band_packets(prio, 1), 2);
	/* a drop in a prio's filter is the prio's drop */
	cx_ok(&c, "filter replace dev eth0 parent 1: protocol ip prio 1 handle 1 matchall action "
		  "drop");
	assert_int_equal(cx_send(&c, c.dev, &udp1, 3), 0);
	assert_int_equal(prio->drops, 3);
	assert_int_equal(drops(c.dev, MQTX_DROP_FILTER), 3);
	cx_ok(&c, "filter show dev eth0");
	assert_non_null(strstr(c.out, "filter parent 1: protocol ip pref 1 matchall chain 0 \n"));
	cx_ok(&c, "filter ls dev eth0"); /* tc's do_filter(): a prefix of "lst" lists too */
	assert_non_null(strstr(c.out, "filter parent 1: protocol ip pref 1 matchall chain 0 \n"));
	/* filters go on the qdisc, not on a band */
	cx_rc(&c, 2, "filter add dev eth0 parent 1:1 matchall action drop");
	assert_non_null(strstr(c.out, "filters go on the qdisc"));
	cx_conserved(c.dev);
	cx_teardown(&c);
}

/* One block for every queue's prio: a rule written once holds on every queue. */
static void test_shared_block(void **state)
{
	struct mqtx_qdisc *prio[4];
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 root handle 1: mq");
	for (int i = 1; i <= 4; i++)
		cx_ok(&c, "qdisc add dev eth0 parent 1:%d handle %d: egress_block 7 prio", i,
		      i + 1);
	cx_ok(&c, "qdisc show dev eth0");
	assert_non_null(strstr(c.out, "qdisc prio 2: parent 1:1 egress_block 7 bands 3"));
	cx_ok(&c, "filter add block 7 protocol ip prio 1 matchall classid :3");
	for (int i = 0; i < 4; i++)
		prio[i] = mqtx__qdisc_find(c.dev, (uint32_t)(i + 2) << 16);
	/* many flows: every queue sees some */
	for (uint16_t p = 0; p < 64; p++) {
		struct flow f = udp1;

		f.sport = (uint16_t)(1000 + p);
		assert_int_equal(cx_send(&c, c.dev, &f, 1), 1);
	}
	for (int i = 0; i < 4; i++) {
		assert_true(prio[i]->packets > 0);
		assert_int_equal(band_packets(prio[i], 2), prio[i]->packets);
	}
	/* the block is changed through its index only */
	cx_rc(&c, 2, "filter add dev eth0 parent 2: matchall action drop");
	assert_non_null(strstr(c.out, "Error: This filter block is shared. Please use the block "
				      "index to manipulate the filters.\n"));
	cx_ok(&c, "filter show dev eth0 parent 3:");
	assert_non_null(strstr(c.out, "matchall chain 0 handle 0x1 flowid :3 \n"));
	cx_ok(&c, "filter show block 7");
	assert_non_null(strstr(c.out, "filter protocol ip pref 1 matchall chain 0 \n"));
	/* the last qdisc that holds it takes the block with it */
	cx_ok(&c, "qdisc del dev eth0 root");
	cx_rc(&c, 1, "filter show block 7");
	assert_string_equal(c.out, "Cannot find block \"7\"\n");
	cx_conserved(c.dev);
	cx_teardown(&c);
}

/* tc's messages and exit codes; a refused command changes nothing. */
static void test_errors(void **state)
{
	struct cx c;
	char before[16384];

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 egress prio 3 matchall action pass");
	cx_ok(&c, "-s filter show dev eth0 egress");
	snprintf(before, sizeof(before), "%s", c.out);
	cx_rc(&c, 255, "filter add dev eth0 egress matchall action gact foo");
	assert_true(!strncmp(c.out, "Bad action type foo\nUsage: ... gact <ACTION>", 44));
	cx_rc(&c, 1, "filter add dev eth0 egress matchall flowid zz");
	assert_string_equal(c.out, "Illegal \"classid\"\n");
	cx_rc(&c, 1, "filter add dev eth0 egress matchall what");
	assert_true(!strncmp(c.out, "What is \"what\"?\nUsage: ... matchall", 35));
	cx_rc(&c, 2, "filter add dev eth0 egress prio 3 handle 1 matchall action drop");
	assert_string_equal(c.out, "Error: Filter already exists.\n"
				   "We have an error talking to the kernel\n");
	cx_rc(&c, 2, "filter add dev eth0 egress prio 3 matchall action drop");
	assert_string_equal(c.out, "Error: matchall holds one filter per priority.\n"
				   "We have an error talking to the kernel\n");
	cx_rc(&c, 2, "filter add dev eth0 egress bogus");
	assert_string_equal(c.out, "Error: TC classifier not found.\n"
				   "We have an error talking to the kernel\n");
	cx_rc(&c, 1, "filter add dev eth0 egress bogus x");
	assert_string_equal(c.out, "Unknown filter \"bogus\", hence option \"x\" is unparsable\n");
	cx_rc(&c, 255, "filter add dev eth0 egress prio 70000 matchall");
	assert_string_equal(c.out, "Error: argument \"70000\" is wrong: invalid priority value\n");
	cx_rc(&c, 255, "filter add dev eth0 egress egress matchall");
	assert_string_equal(c.out, "Error: \"egress\" is duplicate parent ID\n");
	cx_rc(&c, 1, "filter add dev nope egress matchall");
	assert_string_equal(c.out, "Cannot find device \"nope\"\n");
	cx_rc(&c, 2, "filter change dev eth0 egress prio 3 handle 9 matchall action drop");
	cx_rc(&c, 2, "filter del dev eth0 egress prio 4");
	assert_string_equal(c.out, "Error: Filter with specified priority/protocol not found.\n"
				   "We have an error talking to the kernel\n");
	cx_rc(&c, 2, "filter del dev eth0 egress prio 3 handle 5 matchall");
	assert_string_equal(c.out, "Error: Specified filter handle not found.\n"
				   "We have an error talking to the kernel\n");
	cx_rc(&c, 2, "filter add dev eth0 egress prio 3 protocol ip matchall");
	cx_rc(&c, 2, "filter add dev eth0 parent 1: matchall");
	assert_string_equal(c.out, "Error: Parent Qdisc doesn't exists.\n"
				   "We have an error talking to the kernel\n");
	cx_rc(&c, 2, "filter add dev eth0 matchall"); /* the root, mq, takes none */
	assert_string_equal(c.out, "Error: Class doesn't support blocks.\n"
				   "We have an error talking to the kernel\n");
	cx_rc(&c, 2, "filter add dev lo1 matchall"); /* pfifo_fast has no classes */
	assert_string_equal(c.out, "Error: Qdisc not classful.\n"
				   "We have an error talking to the kernel\n");
	cx_rc(&c, 2, "filter add block 9 matchall");
	assert_string_equal(c.out, "Error: Block of given index was not found.\n"
				   "We have an error talking to the kernel\n");
	cx_ok(&c, "-s filter show dev eth0 egress");
	assert_string_equal(c.out, before);
	cx_teardown(&c);
}

/* Receive side: clsact's ingress filters and the ingress qdisc's; drops counted as received. */
static void test_ingress(void **state)
{
	struct mqtx_dev_stats st;
	struct cx c;

	(void)state;
	cx_setup(&c);
	cx_ok(&c, "qdisc add dev eth0 clsact");
	cx_ok(&c, "filter add dev eth0 ingress protocol ip matchall action drop");
	for (int i = 0; i < 5; i++)
		assert_int_equal(mqtx_dev_receive(c.dev, cx_pkt(&c, &udp1, i)), MQTX_XMIT_DROP);
	st = cx_stats(c.dev);
	assert_int_equal(st.rx_drop_reasons[MQTX_DROP_FILTER], 5);
	assert_int_equal(st.txq.drops[MQTX_DROP_FILTER], 0);
	assert_int_equal(cx_send(&c, c.dev, &udp1, 2), 2); /* egress has no filter */
	cx_ok(&c, "qdisc del dev eth0 clsact");
	cx_ok(&c, "qdisc add dev eth0 ingress");
	cx_ok(&c, "filter add dev eth0 ingress matchall action drop");
	cx_ok(&c, "filter show dev eth0 ingress");
	assert_non_null(
		strstr(c.out, "filter protocol all pref 49152 matchall chain 0 handle 0x1"));
	assert_int_equal(mqtx_dev_receive(c.dev, cx_pkt(&c, &udp1, 0)), MQTX_XMIT_DROP);
	st = cx_stats(c.dev);
	assert_int_equal(st.rx_drop_reasons[MQTX_DROP_FILTER], 6);
	cx_teardown(&c);
}

/* The C API: a block of one's own, changed with tc's words, classifying without a qdisc. */
static void test_c_api(void **state)
{
	struct mqtx_extack ack = { "" };
	struct mqtx_tcf_result res;
	struct mqtx_tcf_block *b;
	char *add[] = { "prio", "2", "matchall", "classid", "1:5" };
	char *bad[] = { "matchall", "classid", "x" };
	char *del[] = { "prio", "2" };
	struct mqtx_pkt *p;
	struct cx c;

	(void)state;
	cx_setup(&c);
	assert_int_equal(mqtx_tcf_block_get(0, &b), 0);
	assert_int_equal(mqtx_tcf_block_index(b), 0);
	p = cx_pkt(&c, &udp1, 0);
	assert_int_equal(mqtx_tcf_classify(b, NULL, p, &res), MQTX_ACT_UNSPEC);
	assert_int_equal(mqtx_tcf_change(b, MQTX_TCF_ADD, 5, add, &ack), 0);
	assert_int_equal(mqtx_tcf_classify(b, NULL, p, &res), MQTX_ACT_OK);
	assert_int_equal(res.classid, 0x10005);
	assert_int_equal(mqtx_tcf_change(b, MQTX_TCF_ADD, 3, bad, &ack), -EINVAL);
	assert_string_equal(ack.msg, "Illegal \"classid\"");
	assert_int_equal(mqtx_tcf_change(b, MQTX_TCF_ADD, 5, add, &ack), -EEXIST);
	assert_int_equal(mqtx_tcf_change(b, MQTX_TCF_DELETE, 2, del, &ack), 0);
	assert_int_equal(mqtx_tcf_classify(b, NULL, p, &res), MQTX_ACT_UNSPEC);
	assert_int_equal(mqtx_tcf_change(b, 9, 2, del, &ack), -EINVAL);
	mqtx_pkt_free(p);
	mqtx_tcf_block_put(b);
	cx_teardown(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matchall_drop), cmocka_unit_test(test_verdict_order),
		cmocka_unit_test(test_chains),	      cmocka_unit_test(test_prio_classid),
		cmocka_unit_test(test_shared_block),  cmocka_unit_test(test_errors),
		cmocka_unit_test(test_ingress),	      cmocka_unit_test(test_c_api),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
