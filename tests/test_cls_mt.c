// SPDX-License-Identifier: MIT
/* Rules changed under traffic from several threads: every packet sees the rules before a
 * change or after it, never a mix (the queue, mark and priority a filter sets always agree),
 * each flow keeps its order within a queue, and every packet is sent, dropped with a reason or
 * queued. Invariants only: nothing here depends on how fast anything runs. */
#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cls_fixture.h"
#include "rec_driver.h"

#define SENDERS	    3
#define FLOWS_EACH  16
#define ROUNDS	    10000
#define MIN_CHANGES 60

static atomic_int senders_left;
static atomic_bool go;
static atomic_ullong sent_7999;

/* Version A sends port 7000 to queue 1 with mark and priority 0xa1; version B to queue 3 with
 * 0xb3. Any other packet keeps mark and priority 0. */
#define RULE_A                                                                            \
	"filter replace dev rec0 egress protocol ip prio 1 handle 1 flower ip_proto udp " \
	"dst_port 7000 action skbedit queue_mapping 1 mark 0xa1 action skbedit priority :a1"
#define RULE_B                                                                            \
	"filter replace dev rec0 egress protocol ip prio 1 handle 1 flower ip_proto udp " \
	"dst_port 7000 action skbedit queue_mapping 3 mark 0xb3 action skbedit priority :b3"

static uint16_t dport_of(const struct mqtx_pkt *p)
{
	return (uint16_t)(p->data[14 + 20 + 2] << 8 | p->data[14 + 20 + 3]);
}

static bool consistent(const struct mqtx_pkt *p, unsigned q)
{
	if (dport_of(p) != 7000)
		return !p->mark && !p->priority;
	return (q == 1 && p->mark == 0xa1 && p->priority == 0xa1) ||
	       (q == 3 && p->mark == 0xb3 && p->priority == 0xb3);
}

struct sender {
	struct cx *c;
	struct mqtx_dev *dev;
	unsigned id;
};

static void *send_main(void *arg)
{
	struct sender *s = arg;
	struct mqtx_pkt *burst[FLOWS_EACH];

	while (!atomic_load(&go))
		sched_yield();
	for (unsigned round = 0; round < ROUNDS; round++) {
		for (unsigned i = 0; i < FLOWS_EACH; i++) {
			unsigned f = s->id * FLOWS_EACH + i;
			struct flow fl = { "10.0.0.1", "10.0.0.2", (uint16_t)(1000 + f),
					   (uint16_t)(i % 2    ? 7000
						      : i == 4 ? 7999
							       : 8000 + f) };

			burst[i] = cx_pkt(s->c, &fl, round);
			burst[i]->user = (uint64_t)f << 32 | round;
			if (fl.dport == 7999)
				atomic_fetch_add(&sent_7999, 1);
		}
		/* half the rounds one by one, half in bursts */
		if (round % 2) {
			mqtx_dev_xmit_burst(s->dev, burst, FLOWS_EACH);
		} else {
			for (unsigned i = 0; i < FLOWS_EACH; i++)
				mqtx_dev_xmit(s->dev, burst[i]);
		}
	}
	atomic_fetch_sub(&senders_left, 1);
	return NULL;
}

static void test_change_under_traffic(void **state)
{
	pthread_t th[SENDERS];
	struct sender s[SENDERS];
	struct mqtx_dev_stats st;
	struct mqtx_dev *dev;
	struct rec_priv *r;
	unsigned changes = 0;
	struct cx c;

	(void)state;
	cx_setup(&c);
	dev = rec_dev(c.ctl, "rec0");
	r = rec(dev);
	r->moves_ok = true; /* port 7000's flows move between queues 1 and 3 with the rule */
	r->check = consistent;
	cx_ok(&c, "qdisc add dev rec0 clsact");
	cx_ok(&c, RULE_A);
	cx_ok(&c, "filter add dev rec0 egress protocol ip prio 2 flower ip_proto udp dst_port "
		  "7999 action drop");
	atomic_store(&senders_left, SENDERS);
	for (unsigned i = 0; i < SENDERS; i++) {
		s[i] = (struct sender){ &c, dev, i };
		assert_int_equal(pthread_create(&th[i], NULL, send_main, &s[i]), 0);
	}
	/* Change while anyone sends, and at least MIN_CHANGES times; other priorities come and
	 * go as well (a rule set is rebuilt for each). */
	atomic_store(&go, true);
	while (atomic_load(&senders_left) || changes < MIN_CHANGES) {
		cx_ok(&c, changes % 2 ? RULE_A : RULE_B);
		if (changes % 5 == 0)
			cx_ok(&c, "filter add dev rec0 egress protocol ip prio 3 flower ip_proto "
				  "tcp action drop");
		if (changes % 5 == 3)
			cx_ok(&c, "filter del dev rec0 egress protocol ip prio 3");
		changes++;
	}
	for (unsigned i = 0; i < SENDERS; i++)
		pthread_join(th[i], NULL);
	print_message("%u changes; port 7000's flows moved %llu times\n", changes,
		      (unsigned long long)atomic_load(&r->moved));
	assert_int_equal(atomic_load(&r->bad_check), 0);
	assert_int_equal(atomic_load(&r->bad_order), 0);
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.xmit, SENDERS * FLOWS_EACH * ROUNDS);
	assert_int_equal(st.txq.drops[MQTX_DROP_FILTER], atomic_load(&sent_7999));
	assert_int_equal(st.xmit, st.txq.packets + mqtx_txq_stats_drops(&st.txq) + st.txq.qlen);
	assert_int_equal(atomic_load(&r->taken), st.txq.packets);
	cx_teardown(&c);
}

/* The same rules in shared block 7, under the prio qdisc of every queue of an mq root: one
 * change holds on all four queues at once. Port 7999 is redirected to rec1 meanwhile. */
#define BLOCK_A                                                                                 \
	"filter replace block 7 protocol ip prio 1 handle 1 flower ip_proto udp dst_port 7000 " \
	"action skbedit mark 0xa1 action skbedit priority :a1"
#define BLOCK_B                                                                                 \
	"filter replace block 7 protocol ip prio 1 handle 1 flower ip_proto udp dst_port 7000 " \
	"action skbedit mark 0xb3 action skbedit priority :b3"

static bool consistent_marks(const struct mqtx_pkt *p, unsigned q)
{
	(void)q;
	if (dport_of(p) != 7000)
		return !p->mark && !p->priority;
	return (p->mark == 0xa1 && p->priority == 0xa1) || (p->mark == 0xb3 && p->priority == 0xb3);
}

static void test_block_under_traffic(void **state)
{
	pthread_t th[SENDERS];
	struct sender s[SENDERS];
	struct mqtx_dev_stats st, st1;
	struct mqtx_dev *dev, *dev1;
	unsigned changes = 0;
	struct cx c;

	(void)state;
	atomic_store(&sent_7999, 0);
	atomic_store(&go, false);
	cx_setup(&c);
	dev = rec_dev(c.ctl, "rec0");
	dev1 = rec_dev(c.ctl, "rec1");
	rec(dev)->check = consistent_marks;
	cx_ok(&c, "qdisc replace dev rec0 root handle 1: mq");
	for (unsigned q = 1; q <= REC_NQ; q++)
		cx_ok(&c, "qdisc add dev rec0 parent 1:%u handle %u0: egress_block 7 prio", q, q);
	cx_ok(&c, BLOCK_A);
	cx_ok(&c, "filter add block 7 protocol ip prio 2 flower ip_proto udp dst_port 7999 action "
		  "mirred egress redirect dev rec1");
	atomic_store(&senders_left, SENDERS);
	for (unsigned i = 0; i < SENDERS; i++) {
		s[i] = (struct sender){ &c, dev, i };
		assert_int_equal(pthread_create(&th[i], NULL, send_main, &s[i]), 0);
	}
	atomic_store(&go, true);
	while (atomic_load(&senders_left) || changes < MIN_CHANGES) {
		cx_ok(&c, changes % 2 ? BLOCK_A : BLOCK_B);
		if (changes % 5 == 0)
			cx_ok(&c,
			      "filter add block 7 protocol ip prio 3 flower ip_proto tcp action "
			      "drop");
		if (changes % 5 == 3)
			cx_ok(&c, "filter del block 7 protocol ip prio 3");
		changes++;
	}
	for (unsigned i = 0; i < SENDERS; i++)
		pthread_join(th[i], NULL);
	print_message("%u changes of block 7 under 4 queues\n", changes);
	assert_int_equal(atomic_load(&rec(dev)->bad_check), 0);
	assert_int_equal(atomic_load(&rec(dev)->bad_order), 0);
	assert_int_equal(atomic_load(&rec(dev)->moved), 0);
	assert_int_equal(atomic_load(&rec(dev1)->bad_order), 0);
	mqtx_dev_get_stats(dev, &st);
	mqtx_dev_get_stats(dev1, &st1);
	assert_int_equal(st.xmit, SENDERS * FLOWS_EACH * ROUNDS);
	assert_int_equal(st.txq.drops[MQTX_DROP_REDIRECT], atomic_load(&sent_7999));
	assert_int_equal(st.xmit, st.txq.packets + mqtx_txq_stats_drops(&st.txq) + st.txq.qlen);
	assert_int_equal(atomic_load(&rec(dev)->taken), st.txq.packets);
	assert_int_equal(st1.xmit, atomic_load(&sent_7999));
	assert_int_equal(atomic_load(&rec(dev1)->taken), st1.xmit);
	cx_teardown(&c);
}

/* A standalone action that every filter binds to, replaced while packets run through it: its
 * counters are the action's, so it counts every packet once whichever filter ran it and
 * whichever parameters it had; a packet sees the old parameters or the new, never a mix. */
static bool shared_mark(const struct mqtx_pkt *p, unsigned q)
{
	(void)q;
	return (p->mark == 0xa1 && p->priority == 0xa1) || (p->mark == 0xb3 && p->priority == 0xb3);
}

static uint64_t json_u64(const char *s, const char *key)
{
	const char *at = strstr(s, key);

	assert_non_null(at);
	return strtoull(at + strlen(key), NULL, 10);
}

static void test_shared_action_replaced(void **state)
{
	pthread_t th[SENDERS];
	struct sender s[SENDERS];
	struct mqtx_dev_stats st;
	struct mqtx_dev *dev;
	unsigned changes = 0;
	const char *out;
	struct cx c;

	(void)state;
	atomic_store(&go, false);
	cx_setup(&c);
	dev = rec_dev(c.ctl, "rec0");
	rec(dev)->check = shared_mark;
	rec(dev)->moves_ok = true;
	cx_ok(&c, "qdisc add dev rec0 clsact");
	cx_ok(&c, "actions add action skbedit mark 0xa1 priority :a1 index 5");
	cx_ok(&c, "filter add dev rec0 egress protocol ip prio 1 flower ip_proto udp dst_port 7000 "
		  "action skbedit index 5 action pass");
	cx_ok(&c, "filter add dev rec0 egress prio 2 matchall action skbedit index 5 action pass");
	out = cx_ok(&c, "-j actions get action skbedit index 5");
	assert_int_equal(json_u64(out, "\"ref\":"), 3);
	assert_int_equal(json_u64(out, "\"bind\":"), 2);
	atomic_store(&senders_left, SENDERS);
	for (unsigned i = 0; i < SENDERS; i++) {
		s[i] = (struct sender){ &c, dev, i };
		assert_int_equal(pthread_create(&th[i], NULL, send_main, &s[i]), 0);
	}
	atomic_store(&go, true);
	while (atomic_load(&senders_left) || changes < MIN_CHANGES) {
		cx_ok(&c, "actions replace action skbedit mark 0x%s priority :%s index 5",
		      changes % 2 ? "a1" : "b3", changes % 2 ? "a1" : "b3");
		changes++;
	}
	for (unsigned i = 0; i < SENDERS; i++)
		pthread_join(th[i], NULL);
	print_message("%u replacements of a shared action\n", changes);
	assert_int_equal(atomic_load(&rec(dev)->bad_check), 0);
	mqtx_dev_get_stats(dev, &st);
	assert_int_equal(st.xmit, SENDERS * FLOWS_EACH * ROUNDS);
	out = cx_ok(&c, "-s -j actions get action skbedit index 5");
	assert_int_equal(json_u64(out, "\"packets\":"), st.xmit);
	assert_int_equal(json_u64(out, "\"bind\":"), 2);
	/* bound: the table keeps it; unbound, it goes */
	cx_rc(&c, 255, "actions delete action skbedit index 5");
	cx_ok(&c, "qdisc del dev rec0 clsact");
	out = cx_ok(&c, "-j actions get action skbedit index 5");
	assert_int_equal(json_u64(out, "\"ref\":"), 1);
	assert_int_equal(json_u64(out, "\"bind\":"), 0);
	cx_ok(&c, "actions delete action skbedit index 5");
	cx_teardown(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change_under_traffic),
		cmocka_unit_test(test_block_under_traffic),
		cmocka_unit_test(test_shared_action_replaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
