// SPDX-License-Identifier: MIT
/* The wme qdisc: per-AC limits, sojourn deadlines in virtual time (exact counts), fq_codel
 * mode, in-order extraction and requeueing (the hooks aggregation sessions use). */
#include <errno.h>

#include "test_qdisc_util.h"

#define T0 1000000000ull
#define MS 1000000ull

static struct tq T;

static int setup(void **state)
{
	(void)state;
	tq_setup(&T, 1000, 1500);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tq_teardown(&T);
	return 0;
}

/* A frame to station @sta (last byte of the receiver address), 802.1d priority @up. */
static struct mqtx_pkt *frame(uint8_t sta, uint32_t up, uint16_t sport, uint64_t user)
{
	struct mqtx_pkt *p = tq_udp4(&T, 100, 0x0a000001, 0x0a000002, sport, 9, 0);

	memcpy(p->data, (uint8_t[]){ 0x02, 0, 0, 0, 0, sta }, 6);
	p->priority = up;
	p->user = user;
	return p;
}

static uint64_t drops(enum mqtx_drop_reason r)
{
	struct mqtx_txq_stats st;

	mqtx_txq_get_stats(mqtx_dev_txq(T.dev, 0), &st);
	return st.drops[r];
}

static void test_defaults_and_dump(void **state)
{
	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, NULL), 0);
	assert_string_equal(tq_dump(&T), "vo limit 64p deadline 20ms vi limit 128p deadline 50ms "
					 "be limit 1000p bk limit 4000p fifo");
	assert_int_equal(tq_change(&T, "vo limit 8 deadline 5ms bk be limit 2000 fq_codel"), 0);
	assert_string_equal(tq_dump(&T), "vo limit 8p deadline 5ms vi limit 128p deadline 50ms "
					 "be limit 2000p bk limit 2000p fq_codel radio flows 4096 "
					 "quantum 300 target 20ms interval 100ms ecn");
	/* The radio's table has mac80211's 4096 flows; "flows" sizes a queue's own. */
	assert_int_equal(tq_change(&T, "radio flows 16"), -EINVAL);
	assert_non_null(strstr(T.err, "the radio's table has 4096 flows"));
	assert_int_equal(tq_change(&T, "flows 16"), 0);
	assert_non_null(strstr(tq_dump(&T), "fq_codel queue flows 16 "));
	assert_int_equal(tq_change(&T, "radio"), 0);
	assert_non_null(strstr(tq_dump(&T), "fq_codel radio flows 4096 "));
	assert_non_null(strstr(tq_json(&T), "\"vo_deadline\":5000"));
	assert_int_equal(tq_change(&T, "deadline 0 fifo"), 0);
	assert_string_equal(tq_dump(&T), "vo limit 8p vi limit 128p be limit 2000p "
					 "bk limit 2000p fifo");
}

static void test_parse_errors(void **state)
{
	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, "limit 0"), -EINVAL);
	assert_non_null(strstr(T.err, "limit"));
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, "vo"), -EINVAL);
	assert_non_null(strstr(T.err, "access category"));
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, "vo speed 3"), MQTX_TC_EUSAGE);
	assert_non_null(strstr(T.err, "speed"));
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, "fq_codel flows 0"), -EINVAL);
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, NULL), 0);
	assert_int_equal(tq_change(&T, "quantum 500"), -EINVAL);
	assert_non_null(strstr(T.err, "fq_codel"));
}

/* Each AC has its own limit: voice is refused past 64 while background still queues. */
static void test_per_ac_limits(void **state)
{
	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, "bk limit 100"), 0);
	for (int i = 0; i < 70; i++)
		tq_enq(&T, frame(1, 6, 1, (uint64_t)i));
	for (int i = 0; i < 150; i++)
		tq_enq(&T, frame(1, 1, 2, 1000 + (uint64_t)i));
	assert_int_equal(T.refused, 6 + 50);
	assert_int_equal(T.q->qlen, 64 + 100);
	assert_int_equal(drops(MQTX_DROP_QDISC), 56);
	assert_int_equal(T.q->overlimits, 56);
	/* FIFO in arrival order, whatever the AC. */
	assert_int_equal(tq_deq(&T), 0);
	tq_check_conservation(&T, 220);
	/* A lower limit trims the oldest frames of that AC. */
	assert_int_equal(tq_change(&T, "vo limit 10"), 0);
	assert_int_equal(T.freed, 56 + 53);
	assert_int_equal(tq_deq(&T), 54);
	while (tq_deq(&T) >= 0)
		;
	tq_check_conservation(&T, 220);
}

/* Late voice is dropped at dequeue, counted as expired; a frame exactly at its deadline goes. */
static void test_deadline_virtual_time(void **state)
{
	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, "vo deadline 20ms"), 0);
	for (int i = 0; i < 10; i++)
		tq_enq(&T, frame(1, 7, 1, (uint64_t)i)); /* at T0 */
	mqtx_clock_advance_to(T.clock, T0 + 5 * MS);
	for (int i = 10; i < 20; i++)
		tq_enq(&T, frame(1, 6, 1, (uint64_t)i)); /* at T0 + 5 ms */
	for (int i = 20; i < 30; i++)
		tq_enq(&T, frame(1, 0, 1, (uint64_t)i)); /* best effort: no deadline */
	/* At T0 + 20 ms the first ten have waited exactly 20 ms: still in time. */
	mqtx_clock_advance_to(T.clock, T0 + 20 * MS);
	assert_int_equal(tq_deq(&T), 0);
	assert_int_equal(drops(MQTX_DROP_EXPIRED), 0);
	/* 1 ns later the other nine of them are late; the second ten are 15 ms old. */
	mqtx_clock_advance_to(T.clock, T0 + 20 * MS + 1);
	assert_int_equal(tq_deq(&T), 10);
	assert_int_equal(drops(MQTX_DROP_EXPIRED), 9);
	/* At T0 + 26 ms the rest of the second ten are 21 ms old: all late. BE never is. */
	mqtx_clock_advance_to(T.clock, T0 + 26 * MS);
	assert_int_equal(tq_deq(&T), 20);
	assert_int_equal(drops(MQTX_DROP_EXPIRED), 18);
	mqtx_clock_advance_to(T.clock, T0 + 10000 * MS);
	for (int i = 21; i < 30; i++)
		assert_int_equal(tq_deq(&T), i);
	assert_int_equal(tq_deq(&T), -1);
	assert_int_equal(drops(MQTX_DROP_EXPIRED), 18);
	tq_check_conservation(&T, 30);
}

/* The same deadlines in fq_codel mode, where frames leave by DRR. */
static void test_deadline_fq(void **state)
{
	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, "vi deadline 10ms fq_codel"), 0);
	for (int i = 0; i < 8; i++)
		tq_enq(&T, frame(1, 5, (uint16_t)(100 + i % 4), (uint64_t)i));
	mqtx_clock_advance_to(T.clock, T0 + 11 * MS);
	tq_enq(&T, frame(1, 4, 200, 8));
	assert_int_equal(tq_deq(&T), 8);
	assert_int_equal(tq_deq(&T), -1);
	assert_int_equal(drops(MQTX_DROP_EXPIRED), 8);
	tq_check_conservation(&T, 9);
}

struct want {
	uint8_t sta;
	uint8_t tid;
};

static bool match_sta_tid(const struct mqtx_pkt *pkt, void *arg)
{
	const struct want *w = arg;

	return pkt->data[5] == w->sta && (pkt->priority & 7) == w->tid;
}

/* Interleave frames of two stations and two TIDs over several flows; take one pair out. */
static void fill_mix(void)
{
	for (int i = 0; i < 40; i++)
		tq_enq(&T, frame((uint8_t)(1 + i % 2), (i / 2) % 2 ? 5 : 0, (uint16_t)(i % 5),
				 (uint64_t)i));
}

static void check_extract(void)
{
	struct want w = { 1, 5 };
	struct mqtx_pkt_list out;
	struct mqtx_pkt *p;
	int64_t last = -1, n = 0;

	mqtx_pkt_list_init(&out);
	assert_int_equal(mqtx_qdisc_extract(T.q, match_sta_tid, &w, &out), 10);
	while ((p = mqtx_pkt_list_pop(&out))) {
		assert_true(match_sta_tid(p, &w));
		assert_true((int64_t)p->user > last); /* in arrival order */
		last = (int64_t)p->user;
		mqtx_pkt_free(p);
		n++;
	}
	assert_int_equal(n, 10);
	assert_int_equal(T.q->qlen, 30);
	T.sent += 10; /* taken out, as if sent */
}

static void test_extract_fifo(void **state)
{
	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, NULL), 0);
	fill_mix();
	check_extract();
	/* What stayed keeps its order. */
	for (int64_t last = -1, u; (u = tq_deq(&T)) >= 0; last = u)
		assert_true(u > last);
	tq_check_conservation(&T, 40);
}

static void test_extract_fq(void **state)
{
	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, "fq_codel"), 0);
	fill_mix();
	/* A peeked packet is part of the queue too. */
	assert_non_null(T.q->ops->peek(T.q));
	check_extract();
	while (tq_deq(&T) >= 0)
		;
	tq_check_conservation(&T, 40);
}

/* The requeue list comes first, then the queue; a qdisc without the hook refuses. */
static void test_extract_requeue_and_refusal(void **state)
{
	struct want w = { 1, 0 };
	struct mqtx_pkt_list l, out;
	struct mqtx_pkt *p;

	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, NULL), 0);
	tq_enq(&T, frame(1, 0, 1, 10));
	tq_enq(&T, frame(2, 0, 1, 11));
	tq_enq(&T, frame(1, 0, 1, 12));
	mqtx_pkt_list_init(&l);
	mqtx_pkt_list_add_tail(&l, frame(1, 0, 1, 1));
	mqtx_pkt_list_add_tail(&l, frame(2, 0, 1, 2));
	mqtx_qdisc_requeue_list(T.q, &l, false);
	mqtx_pkt_list_add_tail(&l, frame(1, 0, 1, 0));
	mqtx_qdisc_requeue_list(T.q, &l, true);
	assert_int_equal(T.q->requeue.len, 3);
	mqtx_pkt_list_init(&out);
	assert_int_equal(mqtx_qdisc_extract(T.q, match_sta_tid, &w, &out), 4);
	for (unsigned i = 0; (p = mqtx_pkt_list_pop(&out)); i++) {
		assert_int_equal(p->user, ((uint64_t[]){ 0, 1, 10, 12 })[i]);
		mqtx_pkt_free(p);
	}
	assert_int_equal(T.q->requeue.len, 1);
	assert_int_equal(T.q->requeue.head->user, 2);
	p = mqtx_pkt_list_pop(&T.q->requeue);
	mqtx_pkt_free(p);
	assert_true(mqtx_qdisc_can_extract(T.q));
	mqtx_qdisc_destroy(T.q);
	T.q = NULL;

	assert_int_equal(tq_create(&T, &mqtx__pfifo_qdisc_ops, NULL), 0);
	assert_false(mqtx_qdisc_can_extract(T.q));
	mqtx_pkt_list_init(&out);
	assert_int_equal(mqtx_qdisc_extract(T.q, match_sta_tid, &w, &out), 0);
	tq_enq(&T, frame(1, 0, 1, 1));
	assert_int_equal(mqtx_qdisc_extract(T.q, match_sta_tid, &w, &out), -EOPNOTSUPP);
	assert_int_equal(T.q->qlen, 1);
}

/* Switching FIFO <-> fq_codel keeps every queued frame, one flow in its order. */
static void test_mode_switch_keeps_backlog(void **state)
{
	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, NULL), 0);
	for (int i = 0; i < 50; i++)
		tq_enq(&T, frame(1, 0, 7, (uint64_t)i));
	assert_int_equal(tq_change(&T, "fq_codel flows 16"), 0);
	assert_int_equal(T.q->qlen, 50);
	assert_int_equal(tq_deq(&T), 0);
	assert_int_equal(tq_change(&T, "fifo"), 0);
	for (int i = 1; i < 50; i++)
		assert_int_equal(tq_deq(&T), i);
	tq_check_conservation(&T, 50);
}

/* fq_codel mode: a flow over the AC's limit loses its oldest frame; DRR with mac80211's
 * 300-byte quantum serves the fat flow three 100-byte frames, then the sparse one. */
static void test_fq_drr_and_limit(void **state)
{
	(void)state;
	assert_int_equal(tq_create(&T, &mqtx__wme_qdisc_ops, "be limit 20 fq_codel"), 0);
	for (int i = 0; i < 20; i++)
		tq_enq(&T, frame(1, 0, 1, (uint64_t)i));
	assert_int_equal(tq_enq(&T, frame(1, 0, 2, 100)), MQTX_XMIT_SUCCESS);
	assert_int_equal(drops(MQTX_DROP_QDISC), 1);
	assert_int_equal(T.q->qlen, 20);
	assert_int_equal(tq_deq(&T), 1);
	assert_int_equal(tq_deq(&T), 2);
	assert_int_equal(tq_deq(&T), 3);
	assert_int_equal(tq_deq(&T), 100);
	assert_int_equal(tq_deq(&T), 4);
	while (tq_deq(&T) >= 0)
		;
	tq_check_conservation(&T, 21);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults_and_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_per_ac_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deadline_virtual_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deadline_fq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extract_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extract_fq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extract_requeue_and_refusal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mode_switch_keeps_backlog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fq_drr_and_limit, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
