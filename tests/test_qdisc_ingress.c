// SPDX-License-Identifier: MIT
/* ingress: pass-through, the token-bucket policer's decisions in virtual time, the rx path. */
#include <errno.h>

#include "test_qdisc_util.h"

#define MS 1000000ull
#define T0 1000000000ull

static uint64_t police_drops(struct tq *t)
{
	struct mqtx_dev_stats st;

	mqtx_dev_get_stats(t->dev, &st);
	return st.rx_drop_reasons[MQTX_DROP_POLICE];
}

/* Enqueue as the receive path does: SUCCESS hands the packet straight back. */
static int rx(struct tq *t, uint32_t len)
{
	struct mqtx_pkt *p = tq_pkt(t, len, len);
	int ret = tq_enq(t, p);

	if (ret == MQTX_XMIT_SUCCESS) {
		assert_ptr_equal(t->q->ops->peek(t->q), p);
		assert_ptr_equal(t->q->ops->dequeue(t->q), p);
		assert_int_equal(t->q->qlen, 0);
		t->sent++;
		mqtx_pkt_free(p);
	}
	return ret;
}

static void test_pass_through(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__ingress_qdisc_ops, NULL), 0);
	assert_true(t.q->flags & MQTX_QF_INGRESS);
	assert_string_equal(tq_dump(&t), "---------------- ");
	assert_string_equal(tq_json(&t), ""); /* tc prints the dashes as text only */
	for (int i = 0; i < 100; i++)
		assert_int_equal(rx(&t, 1500), MQTX_XMIT_SUCCESS);
	assert_int_equal(t.q->packets, 100);
	tq_check_conservation(&t, 100);
	tq_teardown(&t);
}

/*
 * rate 8kbit = 1000 B/s, burst 1500 B = a 1.5 s bucket, full at T0.
 *  T0: 1000 B costs 1 s: 0.5 s left, passes; the next 1000 B would need 1 s: police drop
 *      (tokens unchanged); 500 B fits exactly (0.5 - 0.5 = 0): passes; 1 B: drop.
 *  T0+0.7 s: 0.7 s of tokens: 1000 B no, 700 B yes (exactly 0 left).
 *  T0+10 s: refilled to the 1.5 s cap only: 1500 B passes, then 1 B does not.
 */
static void test_policer(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__ingress_qdisc_ops, "rate 8kbit burst 1500"), 0);
	assert_string_equal(tq_dump(&t), "---------------- rate 8Kbit burst 1500b ");
	assert_string_equal(tq_json(&t), "\"rate\":1000,\"burst\":1500"); /* bytes/s, bytes */
	assert_int_equal(rx(&t, 1000), MQTX_XMIT_SUCCESS);
	assert_int_equal(rx(&t, 1000), MQTX_XMIT_DROP);
	assert_int_equal(rx(&t, 500), MQTX_XMIT_SUCCESS);
	assert_int_equal(rx(&t, 1), MQTX_XMIT_DROP);
	mqtx_clock_advance_to(t.clock, T0 + 700 * MS);
	assert_int_equal(rx(&t, 1000), MQTX_XMIT_DROP);
	assert_int_equal(rx(&t, 700), MQTX_XMIT_SUCCESS);
	mqtx_clock_advance_to(t.clock, T0 + 10000 * MS);
	assert_int_equal(rx(&t, 1500), MQTX_XMIT_SUCCESS);
	assert_int_equal(rx(&t, 1), MQTX_XMIT_DROP);
	assert_int_equal(police_drops(&t), 4);
	assert_int_equal(t.q->overlimits, 4);
	tq_check_conservation(&t, 8);
	/* a change keeps what it is not given */
	assert_int_equal(tq_change(&t, "rate 16kbit"), 0);
	assert_string_equal(tq_dump(&t), "---------------- rate 16Kbit burst 1500b ");
	assert_string_equal(tq_json(&t), "\"rate\":2000,\"burst\":1500");
	tq_teardown(&t);
}

static int delivered;

static void on_rx(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	(void)dev;
	(void)arg;
	delivered++;
	mqtx_pkt_free(pkt);
}

static void test_receive_path(void **state)
{
	struct mqtx_dev_stats ds;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__ingress_qdisc_ops, "rate 8kbit burst 2kb"), 0);
	assert_null(mqtx_dev_graft_ingress(t.dev, t.q));
	mqtx_dev_set_rx_handler(t.dev, on_rx, NULL);
	delivered = 0;
	/* 2048-byte bucket at 1000 B/s: two 1000-byte packets pass, the third is policed */
	assert_int_equal(mqtx_dev_receive(t.dev, tq_pkt(&t, 1000, 0)), MQTX_XMIT_SUCCESS);
	assert_int_equal(mqtx_dev_receive(t.dev, tq_pkt(&t, 1000, 1)), MQTX_XMIT_SUCCESS);
	assert_int_equal(mqtx_dev_receive(t.dev, tq_pkt(&t, 1000, 2)), MQTX_XMIT_DROP);
	assert_int_equal(delivered, 2);
	mqtx_dev_get_stats(t.dev, &ds);
	assert_int_equal(ds.rx_packets, 2);
	assert_int_equal(ds.rx_drops, 1);
	assert_int_equal(police_drops(&t), 1);
	assert_ptr_equal(mqtx_dev_graft_ingress(t.dev, NULL), t.q);
	tq_teardown(&t);
}

static void test_rejects(void **state)
{
	static const char *const bad[][2] = {
		{ "rate 1mbit", "both" },
		{ "burst 10kb", "both" },
		{ "rate 0 burst 1", "\"rate\"" },
		{ "rate 1mbit burst 0", "\"burst\"" },
		{ "rate 1mbit burst 1 action drop", "\"action\"" },
		{ "rate x burst 1", "\"x\"" },
	};
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(tq_create(&t, &mqtx__ingress_qdisc_ops, bad[i][0]) < 0);
		if (!strstr(t.err, bad[i][1]))
			fail_msg("\"%s\": message \"%s\"", bad[i][0], t.err);
	}
	assert_int_equal(tq_create(&t, &mqtx__ingress_qdisc_ops, NULL), 0);
	assert_int_equal(tq_change(&t, "rate 1mbit"), -EINVAL);
	assert_string_equal(tq_dump(&t), "---------------- ");
	assert_string_equal(tq_json(&t), ""); /* tc prints the dashes as text only */
	tq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass_through),
		cmocka_unit_test(test_policer),
		cmocka_unit_test(test_receive_path),
		cmocka_unit_test(test_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
