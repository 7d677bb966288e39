// SPDX-License-Identifier: MIT
/* The transaction proof: a root replace on 16 queues fails at every allocation in turn and
 * leaves the old configuration, its counters and its queued packets exactly as they were. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ctl_fixture.h"
#include "txn_fixture.h"
#include <mqtx/qdisc.h>

#define NQ   16
#define NPKT 96

static long injected; /* allocation failures injected over all cases, for the summary */

struct snap {
	struct mqtx_qdisc *q[NQ];
	struct mqtx_qdisc_stats st[NQ];
	char *show;
};

static uint16_t by_user(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	(void)dev;
	(void)arg;
	return (uint16_t)(pkt->user % NQ);
}

static void take(struct mqtx_ctl *ctl, struct mqtx_dev *dev, struct snap *s)
{
	for (uint32_t i = 0; i < NQ; i++) {
		s->q[i] = mqtx_txq_qdisc(mqtx_dev_txq(dev, i));
		mqtx_qdisc_get_stats(s->q[i], &s->st[i]);
	}
	assert_int_equal(fixture_run(ctl, "-s qdisc show dev eth16", &s->show, NULL), 0);
}

static void same(const struct snap *a, const struct snap *b)
{
	for (uint32_t i = 0; i < NQ; i++) {
		assert_ptr_equal(a->q[i], b->q[i]);
		assert_memory_equal(&a->st[i], &b->st[i], sizeof(a->st[i]));
	}
	assert_string_equal(a->show, b->show);
}

static void queue_packets(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool)
{
	mqtx_dev_set_select_queue(dev, by_user, NULL);
	mqtx_dev_stop_all_queues(dev); /* everything stays queued */
	for (uint64_t n = 0; n < NPKT; n++) {
		struct mqtx_pkt *p = mqtx_pkt_alloc(pool);

		assert_non_null(p);
		mqtx_pkt_put(p, 60 + (uint32_t)n);
		p->user = n;
		assert_int_equal(mqtx_dev_xmit(dev, p), MQTX_XMIT_SUCCESS);
	}
}

/* Fail allocation k = 1, 2, ... of @cmd until it succeeds; every failure changes nothing. */
static long fail_every_allocation(struct mqtx_ctl *ctl, struct mqtx_dev *dev, const char *cmd)
{
	struct snap before, after;
	long k;

	take(ctl, dev, &before);
	mqtx_set_allocator(&fi_allocator);
	for (k = 1;; k++) {
		int rc;

		fi_arm(k);
		rc = fixture_run(ctl, cmd, NULL, NULL);
		if (!fi_disarm()) {
			assert_int_equal(rc, 0); /* no k-th allocation: it went through */
			break;
		}
		if (rc == 0)
			continue; /* the failing allocation was not part of the change (output) */
		take(ctl, dev, &after);
		same(&before, &after);
		free(after.show);
	}
	mqtx_set_allocator(NULL);
	free(before.show);
	injected += k - 1;
	return k;
}

static void check_conservation(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool, uint64_t sent)
{
	struct mqtx_dev_stats st;
	uint64_t pk, by;

	mqtx_bh_disable();
	mqtx_dev_wake_all_queues(dev);
	mqtx_bh_enable(); /* the woken queues run here */
	mqtx_dev_get_stats(dev, &st);
	mqtx_null_counts(dev, &pk, &by);
	assert_true(mqtx_dev_all_tx_empty(dev));
	assert_int_equal(st.txq.qlen, 0);
	assert_int_equal(pk + mqtx_txq_stats_drops(&st.txq), sent);
	assert_int_equal(mqtx_pool_in_use(pool), 0);
}

static void txn_case(const char *cmd, bool expect_mq)
{
	struct mqtx_pool_cfg pc = { .count = 512 };
	struct mqtx_ctl *ctl = fixture_ctl();
	struct mqtx_dev *dev = mqtx_ctl_dev(ctl, "eth16");
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev_stats st;
	uint64_t pk, by;
	char *out;
	long k;

	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	queue_packets(dev, pool);
	k = fail_every_allocation(ctl, dev, cmd);
	if (expect_mq)
		assert_true(k > NQ); /* every child was an allocation that could fail */
	/* The new configuration holds every packet: nothing sent, nothing dropped yet. */
	mqtx_dev_get_stats(dev, &st);
	mqtx_null_counts(dev, &pk, &by);
	assert_int_equal(pk, 0);
	assert_int_equal(mqtx_txq_stats_drops(&st.txq), 0);
	assert_int_equal(st.txq.qlen, NPKT);
	assert_int_equal(fixture_run(ctl, "qdisc show dev eth16", &out, NULL), 0);
	assert_int_equal(strncmp(out, expect_mq ? "qdisc mq 1: root" : "qdisc pfifo 1: root", 16),
			 0);
	free(out);
	check_conservation(dev, pool, NPKT);
	mqtx_null_counts(dev, &pk, &by);
	assert_int_equal(pk, NPKT);
	fixture_free(ctl);
	mqtx_pool_destroy(pool);
}

static void test_replace_root_mq(void **state)
{
	(void)state;
	txn_case("qdisc replace dev eth16 root handle 1: mq", true);
}

static void test_replace_root_shared(void **state)
{
	(void)state;
	txn_case("qdisc replace dev eth16 root handle 1: pfifo limit 1000", false);
}

/* Back to mq from a shared root, and an mqprio whose traffic classes apply only on success. */
static void test_mqprio_txn(void **state)
{
	struct mqtx_pool_cfg pc = { .count = 512 };
	struct mqtx_ctl *ctl = fixture_ctl();
	struct mqtx_dev *dev = mqtx_ctl_dev(ctl, "eth16");
	struct mqtx_pkt_pool *pool;

	(void)state;
	assert_int_equal(mqtx_pool_create(&pc, &pool), 0);
	assert_int_equal(
		fixture_run(ctl, "qdisc replace dev eth16 root handle 3: pfifo", NULL, NULL), 0);
	queue_packets(dev, pool);
	fail_every_allocation(ctl, dev,
			      "qdisc replace dev eth16 root handle 2: mqprio num_tc 2 "
			      "map 0 0 0 0 1 1 1 1 queues 8@0 8@8 hw 0");
	check_conservation(dev, pool, NPKT);
	fixture_free(ctl);
	mqtx_pool_destroy(pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_root_mq),
		cmocka_unit_test(test_replace_root_shared),
		cmocka_unit_test(test_mqprio_txn),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	printf("%zu changes, %ld allocation failures injected\n", sizeof(tests) / sizeof(tests[0]),
	       injected);
	return rc;
}
