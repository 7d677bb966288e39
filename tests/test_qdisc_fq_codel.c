// SPDX-License-Identifier: MIT
/* fq_codel: 5-tuple flows, DRR credits, fat-flow drops, memory limit, CoDel per flow, options. */
#include <errno.h>

#include "qdisc/fq_codel.h"
#include <mqtx/xstats.h>
#include "test_qdisc_util.h"

#define MS 1000000ull
#define T0 1000000000ull

#define A_FLOW 0x0a000001, 0x0a000002, 1000, 2000
#define B_FLOW 0x0a000001, 0x0a000002, 1000, 2001

static void enq_flow(struct tq *t, char which, int n, uint64_t first)
{
	for (int i = 0; i < n; i++) {
		struct mqtx_pkt *p =
			which == 'A' ? tq_udp4(t, 1000, A_FLOW, 0) : tq_udp4(t, 1000, B_FLOW, 0);

		p->user = first + (uint64_t)i;
		tq_enq(t, p);
	}
}

static void expect_order(struct tq *t, const int64_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int64_t got = tq_deq(t);

		if (got != want[i])
			fail_msg("position %zu: got %lld, want %lld", i, (long long)got,
				 (long long)want[i]);
	}
}

static void test_defaults_dump(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, NULL), 0);
	assert_string_equal(tq_dump(&t), "limit 10240p flows 1024 quantum 1514 target 5ms "
					 "interval 100ms memory_limit 32Mb ecn drop_batch 64");
	/* what tc -j shows for a default Linux fq_codel */
	assert_string_equal(tq_json(&t),
			    "\"limit\":10240,\"flows\":1024,\"quantum\":1514,"
			    "\"target\":4999,\"interval\":99999,"
			    "\"memory_limit\":33554432,\"ecn\":true,\"drop_batch\":64");
	assert_true(t.q->flags & MQTX_QF_CAN_BYPASS);
	tq_teardown(&t);
}

static void test_flow_classification(void **state)
{
	struct mqtx_pkt *a1, *a2, *b, *c;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, NULL), 0);
	a1 = tq_udp4(&t, 100, A_FLOW, 0);
	a2 = tq_udp4(&t, 700, A_FLOW, 0x02);
	b = tq_udp4(&t, 100, B_FLOW, 0);
	c = tq_pkt(&t, 100, 0);
	/* the 5-tuple decides, not length or TOS */
	assert_int_equal(mqtx__fq_codel_flow_index(t.q, a1), mqtx__fq_codel_flow_index(t.q, a2));
	assert_int_not_equal(mqtx__fq_codel_flow_index(t.q, a1), mqtx__fq_codel_flow_index(t.q, b));
	assert_true(mqtx__fq_codel_flow_index(t.q, c) < 1024);
	/* <our major>:<minor> in priority picks flow minor - 1 */
	c->priority = 0x10005;
	assert_int_equal(mqtx__fq_codel_flow_index(t.q, c), 4);
	c->priority = 0x10000 + 1025; /* out of range: hashed */
	assert_true(mqtx__fq_codel_flow_index(t.q, c) < 1024);
	mqtx_pkt_free(a1);
	mqtx_pkt_free(a2);
	mqtx_pkt_free(b);
	mqtx_pkt_free(c);
	tq_teardown(&t);
}

/*
 * DRR with quantum 1514 and 1000-byte packets; A and B both new, credit 1514 each.
 * A0 (514 left), A1 (-486): A to old with 1028; B0, B1: B to old with 1028;
 * A2 (28), A3 (-972); B2, B3. Order A0 A1 B0 B1 A2 A3 B2 B3.
 * With quantum 3000: A0 A1 A2 (credit 0), B0 B1 B2, A3, B3.
 */
static void test_drr_quantum(void **state)
{
	static const int64_t q1514[] = { 0, 1, 10, 11, 2, 3, 12, 13, -1 };
	static const int64_t q3000[] = { 0, 1, 2, 10, 11, 12, 3, 13, -1 };
	struct mqtx_fq_codel_xstats st;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, NULL), 0);
	enq_flow(&t, 'A', 4, 0);
	enq_flow(&t, 'B', 4, 10);
	mqtx_fq_codel_get_xstats(t.q, &st);
	assert_int_equal(st.new_flow_count, 2);
	assert_int_equal(st.new_flows_len, 2);
	expect_order(&t, q1514, 9);
	assert_int_equal(tq_change(&t, "quantum 3000"), 0);
	enq_flow(&t, 'A', 4, 0);
	enq_flow(&t, 'B', 4, 10);
	expect_order(&t, q3000, 9);
	/* a quantum below 256 is raised to 256 (Linux) */
	assert_int_equal(tq_change(&t, "quantum 100"), 0);
	assert_non_null(strstr(tq_dump(&t), "quantum 256 "));
	tq_check_conservation(&t, 16);
	tq_teardown(&t);
}

/*
 * limit 10: A holds 8 (8000 bytes), B 2. B's 3rd makes 11 > 10: the fattest flow is A; drop
 * from its head until half its bytes (4000) are gone: A0..A3; B's packet stays (SUCCESS).
 * Then A gets 4 more: the 4th makes 11 again with A fattest (8 packets) and A is the
 * newcomer's own flow: 4 more dropped from A's head and the answer is CN.
 */
static void test_fat_flow_drop(void **state)
{
	struct mqtx_fq_codel_xstats st;
	struct mqtx_pkt *p;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, "limit 10"), 0);
	enq_flow(&t, 'A', 8, 0);
	enq_flow(&t, 'B', 2, 10);
	p = tq_udp4(&t, 1000, B_FLOW, 0);
	p->user = 12;
	assert_int_equal(tq_enq(&t, p), MQTX_XMIT_SUCCESS);
	assert_int_equal(t.q->qlen, 7);
	assert_int_equal(t.q->drops, 4);
	assert_int_equal(mqtx__fq_codel_flow_backlog(t.q, mqtx__fq_codel_flow_index(t.q, p)), 3000);
	enq_flow(&t, 'A', 3, 20);
	p = tq_udp4(&t, 1000, A_FLOW, 0);
	p->user = 23;
	assert_int_equal(tq_enq(&t, p), MQTX_XMIT_CN);
	assert_int_equal(t.q->qlen, 7);
	assert_int_equal(t.q->drops, 8);
	mqtx_fq_codel_get_xstats(t.q, &st);
	assert_int_equal(st.drop_overlimit, 8);
	assert_int_equal(st.drop_overmemory, 0);
	/* what is left of A: 21 22 23; of B: 10 11 12 */
	{
		static const int64_t want[] = { 20, 21, 10, 11, 22, 23, 12, -1 };

		expect_order(&t, want, 8);
	}
	tq_check_conservation(&t, 15);
	tq_teardown(&t);
}

static void test_drop_batch_and_memory(void **state)
{
	struct mqtx_fq_codel_xstats st;
	struct mqtx_pkt *p;
	uint32_t ts;
	char opts[64];
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, "limit 10 drop_batch 2"), 0);
	enq_flow(&t, 'A', 11, 0); /* over by one: 2 dropped, not half */
	assert_int_equal(t.q->qlen, 9);
	assert_int_equal(tq_deq(&t), 2);
	mqtx_qdisc_destroy(t.q);
	t.q = NULL;
	t.accepted = t.refused = t.sent = 0;

	/* memory_limit of 3 packets' truesize: the 4th is over memory */
	p = tq_pkt(&t, 1, 0);
	ts = mqtx_fq_codel_truesize(p);
	mqtx_pkt_free(p);
	snprintf(opts, sizeof(opts), "memory_limit %u", 3 * ts);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, opts), 0);
	enq_flow(&t, 'A', 4, 0);
	mqtx_fq_codel_get_xstats(t.q, &st);
	assert_int_equal(st.drop_overmemory, 2); /* half of 4000 bytes: 2 packets */
	assert_int_equal(st.memory_usage, 2ull * ts);
	assert_int_equal(t.q->qlen, 2);
	tq_teardown(&t);
}

static void test_lowered_limit_trims(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, NULL), 0);
	enq_flow(&t, 'A', 6, 0);
	enq_flow(&t, 'B', 4, 10);
	/* trimming drops what dequeue would send next: A0 A1 B0 B1 A2 A3 */
	assert_int_equal(tq_change(&t, "limit 4"), 0);
	assert_int_equal(t.q->qlen, 4);
	assert_int_equal(t.q->drops, 6);
	{
		static const int64_t want[] = { 12, 13, 4, 5, -1 };

		expect_order(&t, want, 5);
	}
	assert_string_equal(tq_dump(&t), "limit 4p flows 1024 quantum 1514 target 5ms "
					 "interval 100ms memory_limit 32Mb ecn drop_batch 64");
	tq_check_conservation(&t, 10);
	tq_teardown(&t);
}

/* CoDel runs per flow with the same arithmetic as codel (see test_qdisc_codel.c). */
static void test_codel_per_flow(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, "quantum 100000"), 0);
	for (int i = 0; i < 10; i++)
		tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i)); /* non-IP: one flow, cannot be marked */
	mqtx_clock_advance_to(t.clock, T0 + 10 * MS);
	assert_int_equal(tq_deq(&t), 0);
	mqtx_clock_advance_to(t.clock, T0 + 100 * MS);
	assert_int_equal(tq_deq(&t), 1);
	mqtx_clock_advance_to(t.clock, T0 + 200 * MS);
	assert_int_equal(tq_deq(&t), 3);
	assert_int_equal(t.q->drops, 1);
	mqtx_clock_advance_to(t.clock, 1269529ull << 10);
	assert_int_equal(tq_deq(&t), 5);
	assert_int_equal(t.q->drops, 2);
	tq_check_conservation(&t, 10);
	tq_teardown(&t);
}

struct seen {
	uint32_t minor[4], qlen[4], n;
	uint64_t backlog[4];
};

static void seen_class(struct mqtx_qdisc *q, const struct mqtx_class *c, void *arg)
{
	struct seen *s = arg;

	assert_int_equal(c->parent, q->handle);
	assert_null(c->leaf);
	assert_true(c->queue_only);
	assert_true(s->n < 4);
	s->minor[s->n] = c->minor;
	s->qlen[s->n] = c->stats->qlen;
	s->backlog[s->n++] = c->stats->backlog;
}

/*
 * fq_codel_dump_stats() and the flows as classes (fq_codel_walk: only the flows on a list, as
 * X:idx+1, with their queue counters and CoDel state), rendered as tc does (q_fq_codel.c).
 */
static void test_xstats_and_flow_classes(void **state)
{
	struct mqtx_fq_codel_flow_xstats fx;
	struct mqtx_fq_codel_xstats st;
	uint32_t a, b, ts;
	struct seen seen = { 0 };
	char want[256];
	struct mqtx_pkt *p;
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, NULL), 0);
	assert_string_equal(tq_xstats(&t, 0, false),
			    "  maxpacket 0 drop_overlimit 0 new_flow_count 0 ecn_mark 0\n"
			    "  new_flows_len 0 old_flows_len 0");
	mqtx_qdisc_walk_classes(t.q, seen_class, &seen);
	assert_int_equal(seen.n, 0);
	enq_flow(&t, 'A', 2, 0);
	enq_flow(&t, 'B', 1, 10);
	p = tq_udp4(&t, 1000, A_FLOW, 0);
	a = mqtx__fq_codel_flow_index(t.q, p) + 1;
	ts = mqtx_fq_codel_truesize(p);
	mqtx_pkt_free(p);
	p = tq_udp4(&t, 1000, B_FLOW, 0);
	b = mqtx__fq_codel_flow_index(t.q, p) + 1;
	mqtx_pkt_free(p);
	/* memory_used appears once it is not 0 */
	snprintf(want, sizeof(want),
		 "  maxpacket 0 drop_overlimit 0 new_flow_count 2 ecn_mark 0 memory_used %u\n"
		 "  new_flows_len 2 old_flows_len 0",
		 3 * ts);
	assert_string_equal(tq_xstats(&t, 0, false), want);
	snprintf(want, sizeof(want),
		 "\"maxpacket\":0,\"drop_overlimit\":0,\"new_flow_count\":2,\"ecn_mark\":0,"
		 "\"memory_used\":%u,\"new_flows_len\":2,\"old_flows_len\":0",
		 3 * ts);
	assert_string_equal(tq_xstats(&t, 0, true), want);
	mqtx_qdisc_walk_classes(t.q, seen_class, &seen);
	assert_int_equal(seen.n, 2); /* in flow order */
	assert_int_equal(seen.minor[0], a < b ? a : b);
	assert_int_equal(seen.minor[1], a < b ? b : a);
	assert_int_equal(seen.qlen[a < b ? 0 : 1], 2);
	assert_int_equal(seen.backlog[a < b ? 0 : 1], 2000);
	assert_int_equal(seen.qlen[a < b ? 1 : 0], 1);
	assert_string_equal(tq_xstats(&t, a, false),
			    "  deficit 1514 count 0 lastcount 0 ldelay 0us");
	/* A0 leaves after 977 units (1000 us): 514 bytes of credit left */
	mqtx_clock_advance_to(t.clock, T0 + MS);
	assert_int_equal(tq_deq(&t), 0);
	assert_string_equal(tq_xstats(&t, a, false),
			    "  deficit 514 count 0 lastcount 0 ldelay 1ms");
	assert_string_equal(tq_xstats(&t, a, true),
			    "\"deficit\":514,\"count\":0,\"lastcount\":0,\"ldelay\":1000");
	assert_int_equal(tq_deq(&t), 1); /* A overdrawn: -486, to the old flows */
	assert_string_equal(tq_xstats(&t, a, false),
			    "  deficit -486 count 0 lastcount 0 ldelay 1ms");
	assert_int_equal(mqtx_fq_codel_get_flow_xstats(t.q, a, &fx), 0);
	assert_true(fx.active);
	assert_int_equal(fx.qlen, 0);
	assert_int_equal(fx.deficit, -486);
	assert_int_equal(mqtx_fq_codel_get_xstats(t.q, &st), 0);
	assert_int_equal(st.maxpacket, 1000);
	assert_int_equal(st.new_flows_len, 2); /* A moves on at the next dequeue */
	assert_int_equal(st.old_flows_len, 0);
	assert_int_equal(tq_deq(&t), 10);
	assert_int_equal(mqtx_fq_codel_get_xstats(t.q, &st), 0);
	assert_int_equal(st.new_flows_len, 1);
	assert_int_equal(st.old_flows_len, 1);
	seen.n = 0;
	mqtx_qdisc_walk_classes(t.q, seen_class, &seen);
	assert_int_equal(seen.n, 2); /* an empty flow on a list is still a class */
	/* flows that are on no list are no classes; minors beyond the flows are none */
	assert_int_equal(mqtx_fq_codel_get_flow_xstats(t.q, a == 1 ? 2 : 1, &fx), 0);
	assert_false(fx.active);
	assert_int_equal(mqtx_fq_codel_get_flow_xstats(t.q, 0, &fx), -ENOENT);
	assert_int_equal(mqtx_fq_codel_get_flow_xstats(t.q, 1025, &fx), -ENOENT);
	assert_string_equal(tq_xstats(&t, 1025, false), "");
	tq_teardown(&t);
}

/* A flow in CoDel's dropping state shows it, and when its next drop is due. */
static void test_flow_class_dropping(void **state)
{
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops, "quantum 100000"), 0);
	for (int i = 0; i < 10; i++)
		tq_enq(&t, tq_pkt(&t, 1000, (uint64_t)i)); /* non-IP: one flow */
	mqtx_clock_advance_to(t.clock, T0 + 10 * MS);
	assert_int_equal(tq_deq(&t), 0);
	mqtx_clock_advance_to(t.clock, T0 + 100 * MS);
	assert_int_equal(tq_deq(&t), 1);
	mqtx_clock_advance_to(t.clock, T0 + 200 * MS);
	assert_int_equal(tq_deq(&t), 3); /* p2 dropped: the schedule of test_qdisc_codel.c */
	{
		struct mqtx_pkt *p = tq_pkt(&t, 1, 0);
		uint32_t m = mqtx__fq_codel_flow_index(t.q, p) + 1;

		mqtx_pkt_free(p);
		assert_string_equal(tq_xstats(&t, m, false),
				    "  deficit 97000 count 1 lastcount 1 ldelay 200ms dropping "
				    "drop_next 100ms");
		assert_string_equal(tq_xstats(&t, m, true),
				    "\"deficit\":97000,\"count\":1,\"lastcount\":1,"
				    "\"ldelay\":200000,\"dropping\":true,\"drop_next\":99997");
	}
	t.freed = 0;
	tq_check_conservation(&t, 10);
	tq_teardown(&t);
}

static void test_rejects(void **state)
{
	static const char *const bad[][2] = {
		/* the kernel's: "flows" without a message (logged), the quantum with one */
		{ "flows 65537", "\"flows\" 65537" },
		{ "quantum 1048577", "Invalid quantum." },
		{ "limit -3", "\"-3\"" },
		{ "memory_limit 5q", "\"5q\"" },
		{ "target", "not complete" },
		{ "perturb 3", "\"perturb\"" },
	};
	struct tq t;

	(void)state;
	tq_setup(&t, 100, 1500);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(tq_create(&t, &mqtx__fq_codel_qdisc_ops, bad[i][0]) < 0);
		if (!strstr(t.err, bad[i][1]))
			fail_msg("\"%s\": message \"%s\"", bad[i][0], t.err);
	}
	assert_int_equal(
		tq_create(&t, &mqtx__fq_codel_qdisc_ops, "flows 16 noecn memory_limit 8gb"),
		-EINVAL); /* > 4 GiB size */
	assert_int_equal(tq_create(&t, &mqtx__fq_codel_qdisc_ops,
				   "flows 16 noecn memory_limit 3gb drop_batch 0 ce_threshold 2ms"),
			 0);
	/* memory_limit is capped at 2^31; a drop_batch of 0 is not sent by tc */
	assert_string_equal(tq_dump(&t), "limit 10240p flows 16 quantum 1514 target 5ms "
					 "ce_threshold 2ms interval 100ms memory_limit 2048Mb "
					 "drop_batch 64");
	assert_int_equal(tq_change(&t, "flows 16"), -EINVAL);
	assert_non_null(strstr(t.err, "creation"));
	assert_int_equal(tq_change(&t, "flows 0"), 0); /* tc does not send a 0 */
	assert_int_equal(tq_change(&t, "limit 5 quantum 2000000"), -EINVAL);
	assert_non_null(strstr(tq_dump(&t), "limit 10240p"));
	tq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_dump),
		cmocka_unit_test(test_flow_classification),
		cmocka_unit_test(test_drr_quantum),
		cmocka_unit_test(test_fat_flow_drop),
		cmocka_unit_test(test_drop_batch_and_memory),
		cmocka_unit_test(test_lowered_limit_trims),
		cmocka_unit_test(test_codel_per_flow),
		cmocka_unit_test(test_xstats_and_flow_classes),
		cmocka_unit_test(test_flow_class_dropping),
		cmocka_unit_test(test_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
