// SPDX-License-Identifier: MIT
/* ets: strict bands before the sharing ones, deficit round robin among those by their quanta
 * (Linux's ets_qdisc_dequeue()), classification, a live change of the bands, and a band's
 * child replaced with its backlog. */
#include <errno.h>
#include <inttypes.h>

#include "qdisc_mt.h"
#include "test_qdisc_util.h"

static struct mqtx_pkt *pkt_to(struct tq *t, uint32_t len, uint32_t priority, uint64_t user)
{
	struct mqtx_pkt *p = tq_pkt(t, len, user);

	p->priority = priority;
	return p;
}

/*
 * bands 3 strict 1 quanta 2000 1000: band 0 strict, bands 1 and 2 share 2:1. Two packets in
 * band 0, then six 1000-byte packets in band 1 and six in band 2 (band 1 joins the round
 * robin first, each with its quantum as deficit). By hand from ets_qdisc_dequeue():
 *   0 0 (strict), 1 1 (deficit 2000 spent), 2 (1000 spent), 1 1, 2, 1 1 (band 1 empty), 2 2 2 2.
 */
static void test_strict_then_drr(void **state)
{
	static const int64_t order[] = { 0, 0, 1, 1, 2, 1, 1, 2, 1, 1, 2, 2, 2, 2 };
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "bands 3 strict 1 quanta 2000 1000"),
			 0);
	for (int i = 0; i < 2; i++)
		tq_enq(&t, pkt_to(&t, 1000, 0x10001, 0));
	for (int i = 0; i < 6; i++)
		tq_enq(&t, pkt_to(&t, 1000, 0x10002, 1));
	for (int i = 0; i < 6; i++)
		tq_enq(&t, pkt_to(&t, 1000, 0x10003, 2));
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		/* every other one peeked first: a peek is the dequeue to come, and keeps it */
		if (i % 2) {
			assert_int_equal(t.q->ops->peek(t.q)->user, order[i]);
			assert_int_equal(t.q->qlen, 14 - i);
		}
		assert_int_equal(tq_deq(&t), order[i]);
	}
	assert_int_equal(tq_deq(&t), -1);
	tq_check_conservation(&t, 14);
	tq_teardown(&t);
}

/* A strict band's packet overtakes the sharing bands at once; the shares over many packets
 * follow the quanta (3000:1000 bytes). */
static void test_shares(void **state)
{
	unsigned sent[3] = { 0, 0, 0 };
	struct tq t;

	(void)state;
	tq_setup(&t, 1000, 1500);
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "strict 1 quanta 3000 1000"), 0);
	for (int i = 0; i < 400; i++) {
		tq_enq(&t, pkt_to(&t, 500, 0x10002, 1));
		tq_enq(&t, pkt_to(&t, 500, 0x10003, 2));
	}
	for (int i = 0; i < 400; i++)
		sent[tq_deq(&t)]++;
	assert_int_equal(sent[1], 300);
	assert_int_equal(sent[2], 100);
	tq_enq(&t, pkt_to(&t, 500, 0x10001, 0));
	assert_int_equal(tq_deq(&t), 0);
	tq_check_conservation(&t, 801);
	tq_teardown(&t);
}

/* ets_classify(): a priority naming a band, a class beyond the bands (priority 0's band), the
 * priomap with the last band for what it does not name, another qdisc's major as priority 0. */
static void test_classify(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "bands 4 strict 4 priomap 2 1"), 0);
	tq_enq(&t, pkt_to(&t, 100, 0x10004, 4));  /* band 3 */
	tq_enq(&t, pkt_to(&t, 100, 1, 1));	  /* priomap: band 1 */
	tq_enq(&t, pkt_to(&t, 100, 5, 3));	  /* unset: the last band */
	tq_enq(&t, pkt_to(&t, 100, 0x10009, 2));  /* no such band: priority 0's, band 2 */
	tq_enq(&t, pkt_to(&t, 100, 0x20001, 22)); /* another major: priority 0, band 2 */
	assert_int_equal(tq_deq(&t), 1);
	assert_int_equal(tq_deq(&t), 2);
	assert_int_equal(tq_deq(&t), 22);
	assert_int_equal(tq_deq(&t), 4);
	assert_int_equal(tq_deq(&t), 3);
	assert_string_equal(tq_dump(&t),
			    "bands 4 strict 4 priomap 2 1 3 3 3 3 3 3 3 3 3 3 3 3 3 3 ");
	tq_check_conservation(&t, 5);
	tq_teardown(&t);
}

/* A change keeps what stays: fewer bands drop the backlog of the bands that go; a strict band
 * turned sharing joins the round robin with what it holds. */
static void test_change_live(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "bands 3 strict 3"), 0);
	for (uint32_t b = 1; b <= 3; b++)
		for (int i = 0; i < 2; i++)
			tq_enq(&t, pkt_to(&t, 100, 0x10000 | b, b));
	assert_int_equal(tq_change(&t, "bands 2 quanta 300 300"), 0);
	assert_int_equal(t.q->qlen, 4);
	assert_int_equal(t.q->drops, 2);
	assert_string_equal(tq_dump(&t),
			    "bands 2 quanta 300 300 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
			    "1 1 ");
	for (int i = 0; i < 4; i++)
		assert_true(tq_deq(&t) > 0);
	assert_int_equal(tq_deq(&t), -1);
	assert_int_equal(tq_change(&t, "bands 17"), -EINVAL);
	tq_check_conservation(&t, 6);
	tq_teardown(&t);
}

/* tc's refusals and its arithmetic: bands from strict + quanta, the quanta clamped. */
static void test_parse(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "quanta 1000 0"), -EINVAL);
	assert_string_equal(t.err, "\"quanta\" must be > 0");
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "bands 2 strict 3"), MQTX_TC_EUSAGE);
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "bands 2 priomap 0 1 2"), -EINVAL);
	assert_string_equal(t.err, "\"priomap\" element is out of bounds");
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "quanta"), MQTX_TC_EFATAL);
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "strict 9 quanta 1 2 3 4 5 6 7 8"),
			 -EINVAL);
	assert_string_equal(t.err, "sch_ets: Invalid number of bands");
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "bands 3 quanta 1 2000000"), 0);
	assert_string_equal(tq_dump(&t),
			    "bands 3 quanta 256 1048576 1514 priomap 2 2 2 2 2 2 2 2 2 "
			    "2 2 2 2 2 2 2 ");
	tq_teardown(&t);
}

/* Two threads offer packets to a strict band and two sharing ones (and by the priomap) and
 * two take them. */
static void test_conservation_threads(void **state)
{
	static const uint32_t prios[] = { 0x10001, 0x10002, 0x10003, 7 };
	struct tq t;

	(void)state;
	tq_setup(&t, 300, 1500);
	assert_int_equal(tq_create(&t, &mqtx__ets_qdisc_ops, "strict 1 quanta 1500 600"), 0);
	tq_mt_conservation(&t, prios, 4);
	tq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strict_then_drr), cmocka_unit_test(test_shares),
		cmocka_unit_test(test_classify),	cmocka_unit_test(test_change_live),
		cmocka_unit_test(test_parse),		cmocka_unit_test(test_conservation_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
