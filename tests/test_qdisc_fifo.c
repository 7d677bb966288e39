// SPDX-License-Identifier: MIT
/* bfifo, pfifo and pfifo_head_drop: limits, order, drop accounting, options, changes, dumps. */
#include <errno.h>

#include "core/core.h" /* mqtx__pfifo_qdisc_ops */
#include "test_qdisc_util.h"

static void test_bfifo_defaults(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__bfifo_qdisc_ops, NULL), 0);
	/* tx_queue_len x (mtu + 14) = 10 x 1514 */
	assert_string_equal(tq_dump(&t), "limit 15140b");
	assert_string_equal(tq_json(&t), "\"limit\":15140"); /* iproute2 print_size(): bytes */
	assert_true(t.q->flags & MQTX_QF_CAN_BYPASS);
	tq_teardown(&t);
}

static void test_bfifo_limit_order_drops(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__bfifo_qdisc_ops, "limit 3000"), 0);
	assert_string_equal(tq_dump(&t), "limit 3000b");
	for (int i = 0; i < 3; i++)
		assert_int_equal(tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i)), MQTX_XMIT_SUCCESS);
	/* backlog + len must stay <= limit: one byte more is refused */
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1, 99)), MQTX_XMIT_DROP);
	assert_int_equal(t.q->qlen, 3);
	assert_int_equal(t.q->backlog, 3000);
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1000, 3)), MQTX_XMIT_SUCCESS);
	assert_int_equal(t.q->ops->peek(t.q)->user, 1);
	assert_int_equal(tq_deq(&t), 1);
	tq_check_conservation(&t, 5);
	assert_int_equal(t.q->drops, 1);
	assert_int_equal(t.freed, 1);
	tq_teardown(&t);
}

/* A lowered limit drops nothing (Linux: fifo change is __fifo_init, which only stores it):
 * the backlog drains, and newcomers are refused until backlog + len fits again. */
static void test_bfifo_lower_limit_keeps(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__bfifo_qdisc_ops, "limit 3000"), 0);
	for (int i = 0; i < 3; i++)
		tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i));
	assert_int_equal(tq_change(&t, "limit 1500"), 0);
	assert_int_equal(t.freed, 0);
	assert_int_equal(t.q->drops, 0);
	assert_int_equal(t.q->qlen, 3);
	assert_int_equal(t.q->backlog, 3000);
	assert_false(t.q->flags & MQTX_QF_CAN_BYPASS); /* 1500 < mtu + 14 */
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1, 10)), MQTX_XMIT_DROP);
	assert_int_equal(tq_deq(&t), 0);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1, 11)), MQTX_XMIT_DROP); /* 2000 + 1 > 1500 */
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 500, 12)), MQTX_XMIT_SUCCESS); /* 1000 + 500 */
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 1, 13)), MQTX_XMIT_DROP);
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), 12);
	tq_check_conservation(&t, 7);
	assert_int_equal(t.q->drops, 3);
	assert_string_equal(tq_dump(&t), "limit 1500b");
	/* An empty change changes nothing. */
	assert_int_equal(tq_change(&t, ""), 0);
	assert_string_equal(tq_dump(&t), "limit 1500b");
	assert_int_equal(tq_change(&t, "limit 10kb"), 0);
	assert_string_equal(tq_dump(&t), "limit 10Kb");
	assert_string_equal(tq_json(&t), "\"limit\":10240");
	assert_true(t.q->flags & MQTX_QF_CAN_BYPASS);
	tq_teardown(&t);
}

/* pfifo too: five queued under a limit lowered to 2 all leave; a newcomer waits for qlen < 2. */
static void test_pfifo_lower_limit_keeps(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__pfifo_qdisc_ops, "limit 5"), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i)), MQTX_XMIT_SUCCESS);
	assert_int_equal(tq_change(&t, "limit 2"), 0);
	assert_int_equal(t.freed, 0);
	assert_int_equal(t.q->qlen, 5);
	assert_int_equal(t.q->backlog, 500);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, 5)), MQTX_XMIT_DROP);
	for (int i = 0; i < 4; i++)
		assert_int_equal(tq_deq(&t), i);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, 6)), MQTX_XMIT_SUCCESS); /* qlen 1 < 2 */
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, 7)), MQTX_XMIT_DROP);
	assert_int_equal(tq_deq(&t), 4);
	assert_int_equal(tq_deq(&t), 6);
	assert_int_equal(tq_deq(&t), -1);
	tq_check_conservation(&t, 8);
	assert_int_equal(t.q->drops, 2);
	tq_teardown(&t);
}

static void test_fifo_rejects(void **state)
{
	/* tc's fifo_parse_opt(): its words, and what tc exits with (255, 1, 1 and the usage) */
	static const struct {
		const char *opt, *msg;
		int err;
	} bad[] = {
		{ "limit", "Command line is not complete", MQTX_TC_EFATAL },
		{ "limit 10x", "Illegal value for \"limit\": \"10x\"", -EINVAL },
		{ "limit -1", "\"-1\"", -EINVAL },
		{ "bogus 1", "unknown parameter \"bogus\"", MQTX_TC_EUSAGE },
		{ "limit 10 extra", "\"extra\"", MQTX_TC_EUSAGE },
		{ "help", "", MQTX_TC_EUSAGE },
	};
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tq_create(&t, &mqtx__bfifo_qdisc_ops, bad[i].opt), bad[i].err);
		assert_non_null(strstr(t.err, bad[i].msg));
		assert_int_equal(tq_create(&t, &mqtx__pfifo_head_drop_qdisc_ops, bad[i].opt),
				 bad[i].err);
		assert_non_null(strstr(t.err, bad[i].msg));
	}
	assert_null(t.q);
	/* a refused change leaves the qdisc as it was */
	assert_int_equal(tq_create(&t, &mqtx__pfifo_head_drop_qdisc_ops, "limit 4"), 0);
	assert_int_equal(tq_change(&t, "limit 2 bogus"), MQTX_TC_EUSAGE);
	assert_string_equal(tq_dump(&t), "limit 4p");
	assert_string_equal(tq_json(&t), "\"limit\":4");
	tq_teardown(&t);
}

/* Integer options take hex and octal as tc's get_unsigned(.., 0) does. */
static void test_integer_bases(void **state)
{
	static const struct {
		const struct mqtx_qdisc_ops *ops;
		const char *opt, *dump;
	} cases[] = {
		/* tc reads every fifo limit with get_size (strtod): these are what tc 6.1 made of
		 * them on this machine. */
		{ &mqtx__pfifo_qdisc_ops, "limit 0x10", "limit 16p" },
		{ &mqtx__pfifo_qdisc_ops, "limit 010", "limit 10p" },
		{ &mqtx__pfifo_qdisc_ops, "limit 08", "limit 8p" },
		{ &mqtx__pfifo_qdisc_ops, "limit 0X1f", "limit 31p" },
		{ &mqtx__pfifo_qdisc_ops, "limit 1e2", "limit 100p" },
		{ &mqtx__pfifo_qdisc_ops, "limit 10kb", "limit 10240p" },
		{ &mqtx__pfifo_qdisc_ops, "limit -0", "limit 0p" },
		{ &mqtx__pfifo_qdisc_ops, "limit 0", "limit 0p" },
		{ &mqtx__fq_codel_qdisc_ops, "limit 0x100 flows 020 quantum 0x5ea",
		  "limit 256p flows 16 quantum 1514 target 5ms interval 100ms memory_limit 32Mb "
		  "ecn "
		  "drop_batch 64" },
	};
	static const char *const bad[] = { "limit 0x", "limit inf", "limit -1", "limit 5p" };
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (tq_create(&t, cases[i].ops, cases[i].opt))
			fail_msg("\"%s\": %s", cases[i].opt, t.err);
		assert_string_equal(tq_dump(&t), cases[i].dump);
		mqtx_qdisc_destroy(t.q);
		t.q = NULL;
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tq_create(&t, &mqtx__pfifo_qdisc_ops, bad[i]), -EINVAL);
		assert_non_null(strstr(t.err, bad[i] + 6)); /* the message names the value */
	}
	tq_teardown(&t);
}

static void test_head_drop(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__pfifo_head_drop_qdisc_ops, NULL), 0);
	assert_string_equal(tq_dump(&t), "limit 10p"); /* tx_queue_len */
	assert_int_equal(tq_change(&t, "limit 3"), 0);
	assert_string_equal(tq_dump(&t), "limit 3p");
	for (int i = 0; i < 3; i++)
		assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i)), MQTX_XMIT_SUCCESS);
	/* Full: the oldest goes, the newcomer stays, and the sender hears CN. */
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, 3)), MQTX_XMIT_CN);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, 4)), MQTX_XMIT_CN);
	assert_int_equal(t.q->qlen, 3);
	assert_int_equal(t.q->drops, 2);
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), 3);
	assert_int_equal(tq_deq(&t), 4);
	assert_int_equal(tq_deq(&t), -1);
	tq_check_conservation(&t, 5);
	tq_teardown(&t);
}

/* Above a lowered limit, each newcomer still costs one packet from the head: the queue keeps
 * its length instead of being cut down at the change (Linux's pfifo_tail_enqueue). */
static void test_head_drop_zero_and_lower(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__pfifo_head_drop_qdisc_ops, "limit 0"), 0);
	assert_false(t.q->flags & MQTX_QF_CAN_BYPASS);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, 0)), MQTX_XMIT_DROP);
	assert_int_equal(tq_change(&t, "limit 5"), 0);
	assert_true(t.q->flags & MQTX_QF_CAN_BYPASS);
	for (int i = 1; i <= 5; i++)
		tq_enq(&t, tq_pkt(&t, 100, (uint64_t)i));
	assert_int_equal(tq_change(&t, "limit 2"), 0);
	assert_int_equal(t.freed, 1); /* the refused one only */
	assert_int_equal(t.q->qlen, 5);
	assert_int_equal(t.q->backlog, 500);
	assert_int_equal(tq_enq(&t, tq_pkt(&t, 100, 6)), MQTX_XMIT_CN);
	assert_int_equal(t.q->qlen, 5);
	assert_int_equal(tq_deq(&t), 2);
	tq_check_conservation(&t, 7);
	assert_int_equal(t.q->drops, 2);
	tq_teardown(&t);
}

/* Through the real transmit path on an up device: the null driver takes what bfifo holds. */
static void test_bfifo_through_xmit(void **state)
{
	struct mqtx_qdisc *qs[1], *old[1] = { NULL };
	struct mqtx_dev_stats ds;
	uint64_t pk, by;
	struct tq t;

	(void)state;
	tq_setup(&t, 10, 1500);
	assert_int_equal(tq_create(&t, &mqtx__bfifo_qdisc_ops, "limit 2000"), 0);
	qs[0] = t.q;
	mqtx_dev_config_lock(t.dev);
	mqtx_dev_graft_all(t.dev, qs, old);
	mqtx_dev_config_unlock(t.dev);
	assert_int_equal(mqtx_dev_open(t.dev), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(mqtx_dev_xmit(t.dev, tq_pkt(&t, 500, (uint64_t)i)),
				 MQTX_XMIT_SUCCESS);
	mqtx_null_counts(t.dev, &pk, &by);
	assert_int_equal(pk, 4);
	assert_int_equal(by, 2000);
	mqtx_dev_get_stats(t.dev, &ds);
	assert_int_equal(ds.txq.packets, 4);
	assert_int_equal(mqtx_txq_stats_drops(&ds.txq), 0);
	mqtx_dev_close(t.dev);
	t.q = NULL; /* owned by the device now */
	tq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bfifo_defaults),
		cmocka_unit_test(test_bfifo_limit_order_drops),
		cmocka_unit_test(test_bfifo_lower_limit_keeps),
		cmocka_unit_test(test_pfifo_lower_limit_keeps),
		cmocka_unit_test(test_fifo_rejects),
		cmocka_unit_test(test_integer_bases),
		cmocka_unit_test(test_head_drop),
		cmocka_unit_test(test_head_drop_zero_and_lower),
		cmocka_unit_test(test_bfifo_through_xmit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
