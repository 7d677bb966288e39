// SPDX-License-Identifier: MIT
/* bench/mem: memory, counted through mqtx_set_allocator(): bytes per idle TX queue (alone, and
 * with its default qdisc), bytes per packet of a pool, and the heap a queued packet costs
 * beyond its pool (none is the design: a qdisc links packets, it allocates nothing). */
#include <stdio.h>
#include <stdlib.h>

#include <mqtx/qdisc.h>

#include "bench_run.h"

#define FEW    1
#define MANY   257
#define QUEUED 1000

/* Live library bytes of an open null device with @n TX queues (its default qdiscs unless
 * @noqueue). */
static long long dev_bytes(unsigned n, bool noqueue)
{
	struct mqtx_dev_cfg cfg = { .name = "mem0",
				    .ops = &mqtx_null_ops,
				    .num_txq = n,
				    .flags = noqueue ? MQTX_DEV_F_NO_QUEUE : 0 };
	long long before = bench_live_bytes(), bytes;
	struct mqtx_dev *dev;

	if (mqtx_dev_create(&cfg, &dev) || mqtx_dev_open(dev)) {
		fprintf(stderr, "mem: cannot create the device\n");
		exit(1);
	}
	bytes = bench_live_bytes() - before;
	mqtx_dev_destroy(dev);
	return bytes;
}

static void queues(void)
{
	/* The difference between many queues and few: what one more queue costs, without what
	 * the device has once (its name, hasher, thread slots). */
	double txq = (double)(dev_bytes(MANY, true) - dev_bytes(FEW, true)) / (MANY - FEW);
	double with = (double)(dev_bytes(MANY, false) - dev_bytes(FEW, false)) / (MANY - FEW);

	printf("bench=mem what=idle_txq txq_bytes=%.0f txq_qdisc_bytes=%.0f qdisc=%s "
	       "qdisc_bytes=%.0f queues=%u\n",
	       txq, with, mqtx_default_qdisc(NULL), with - txq, MANY);
}

static void packets(void)
{
	struct mqtx_dev_cfg cfg = { .name = "mem1", .ops = &mqtx_null_ops, .num_txq = 1 };
	struct mqtx_pool_cfg pc = { .count = 4096 };
	long long before = bench_live_bytes(), pool_bytes, queued;
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	struct mqtx_dev_stats st;
	uint64_t a0;

	if (mqtx_pool_create(&pc, &pool))
		exit(1);
	pool_bytes = bench_live_bytes() - before;
	if (mqtx_dev_create(&cfg, &dev) || mqtx_dev_open(dev))
		exit(1);
	/* A stopped queue: every packet stays in the qdisc (no bypass, no driver). */
	mqtx_txq_stop(mqtx_dev_txq(dev, 0));
	before = bench_live_bytes();
	a0 = bench_alloc_count();
	for (int i = 0; i < QUEUED; i++) {
		struct mqtx_pkt *p = mqtx_pkt_alloc(pool);

		memset(mqtx_pkt_put(p, 64), 0, 64);
		mqtx_dev_xmit(dev, p);
	}
	queued = bench_live_bytes() - before;
	mqtx_dev_get_stats(dev, &st);
	printf("bench=mem what=packet pool_bytes_per_pkt=%.0f data_room=2048 headroom=128 "
	       "queued=%llu heap_bytes_per_queued_pkt=%.2f allocs_per_queued_pkt=%.3f\n",
	       (double)pool_bytes / pc.count, (unsigned long long)st.txq.qlen,
	       st.txq.qlen ? (double)queued / (double)st.txq.qlen : 0,
	       st.txq.qlen ? (double)(bench_alloc_count() - a0) / (double)st.txq.qlen : 0);
	mqtx_dev_destroy(dev);
	mqtx_pool_destroy(pool);
}

int main(void)
{
	bench_count_install();
	queues();
	packets();
	return 0;
}
