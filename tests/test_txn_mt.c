// SPDX-License-Identifier: MIT
/* The transaction under traffic: a thread transmits while root replaces fail at every
 * allocation in turn and then succeed; no packet is lost (sent = transmitted + dropped). */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ctl_fixture.h"
#include "txn_fixture.h"
#include <mqtx/qdisc.h>

struct sender {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	atomic_bool stop;
	atomic_ullong progress;
	uint64_t sent;
};

static void *send_loop(void *arg)
{
	struct sender *s = arg;
	uint64_t n = 0;

	while (!atomic_load(&s->stop)) {
		struct mqtx_pkt *p = mqtx_pkt_alloc(s->pool);

		if (!p) {
			mqtx_tx_action();
			continue;
		}
		mqtx_pkt_put(p, 64);
		p->hash = (uint32_t)(n * 2654435761u);
		p->flags |= MQTX_PKT_F_HASH_VALID;
		mqtx_dev_xmit(s->dev, p);
		atomic_store(&s->progress, ++n);
	}
	mqtx_tx_action();
	s->sent = n;
	return NULL;
}

static void test_replace_under_traffic(void **state)
{
	static const char *const cmds[] = {
		"qdisc replace dev eth16 root handle 1: mq",
		"qdisc replace dev eth16 root handle 2: pfifo limit 50",
		"qdisc replace dev eth16 root handle 3: pfifo_fast",
		("qdisc replace dev eth16 root handle 4: mqprio num_tc 2 map 0 1 1 1 0 1 0 0 "
		 "queues 8@0 8@8 hw 0"),
	};
	struct mqtx_pool_cfg pc = { .count = 4096 };
	struct mqtx_ctl *ctl = fixture_ctl();
	struct sender s = { .dev = mqtx_ctl_dev(ctl, "eth16") };
	struct mqtx_dev_stats st;
	uint64_t pk, by;
	pthread_t t;

	(void)state;
	assert_int_equal(mqtx_pool_create(&pc, &s.pool), 0);
	assert_int_equal(pthread_create(&t, NULL, send_loop, &s), 0);
	while (atomic_load(&s.progress) < 2000)
		sched_yield();
	mqtx_set_allocator(&fi_allocator);
	for (unsigned c = 0; c < 8; c++) {
		const char *cmd = cmds[c % 4];

		for (long k = 1;; k++) {
			int rc;

			fi_arm(k);
			rc = fixture_run(ctl, cmd, NULL, NULL);
			if (!fi_disarm()) {
				assert_int_equal(rc, 0);
				break;
			}
		}
		/* Deleting brings the default mq back, so the next replace creates again. */
		assert_int_equal(fixture_run(ctl, "qdisc del dev eth16 root", NULL, NULL), 0);
	}
	for (uint64_t until = atomic_load(&s.progress) + 2000; atomic_load(&s.progress) < until;)
		sched_yield();
	mqtx_set_allocator(NULL);
	atomic_store(&s.stop, true);
	pthread_join(t, NULL);
	mqtx_tx_action();
	mqtx_dev_get_stats(s.dev, &st);
	mqtx_null_counts(s.dev, &pk, &by);
	assert_true(s.sent > 0);
	assert_int_equal(st.xmit, s.sent);
	assert_int_equal(pk + mqtx_txq_stats_drops(&st.txq) + st.txq.qlen, s.sent);
	assert_int_equal(st.txq.drops[MQTX_DROP_DOWN], 0);
	assert_int_equal(st.txq.qlen, 0);
	fixture_free(ctl);
	mqtx_pool_destroy(s.pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_under_traffic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
