// SPDX-License-Identifier: MIT
/* bench/xmit: packets per second through the whole transmit path (frame from the pool, flow
 * hash, select, enqueue or bypass, dequeue, null driver, free) with per-queue qdiscs, and in
 * the same run the baseline: one qdisc and lock shared by every queue (the single-lock
 * design the multiqueue series replaced). One line per result; medians of REPS runs. */
#include <stdio.h>
#include <stdlib.h>

#include <mqtx/qdisc.h>

#include "bench_run.h"

#define REPS 5

static double run_secs = 0.25;

static void make_shared(struct mqtx_dev *dev)
{
	struct mqtx_qdisc *shared, *qs[16], *old[16];

	mqtx_dev_config_lock(dev);
	if (mqtx_qdisc_create(dev, mqtx_dev_txq(dev, 0), mqtx_qdisc_lookup("pfifo_fast"), 0, NULL,
			      NULL, &shared)) {
		fprintf(stderr, "xmit: cannot create the shared qdisc\n");
		exit(1);
	}
	for (unsigned i = 0; i < mqtx_dev_num_txq(dev); i++)
		qs[i] = shared;
	mqtx_dev_graft_all(dev, qs, old);
	mqtx_dev_config_unlock(dev);
	for (unsigned i = 0; i < mqtx_dev_num_txq(dev); i++)
		mqtx_qdisc_destroy(old[i]);
}

static double measure(unsigned threads, unsigned burst, unsigned nq, bool shared)
{
	struct mqtx_dev_cfg cfg = { .name = "bench", .ops = &mqtx_null_ops, .num_txq = nq };
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	double pps;

	if (mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 65536, .data_room = 256 },
			     &pool) || mqtx_dev_create(&cfg, &dev) || mqtx_dev_open(dev)) {
		fprintf(stderr, "xmit: setup failed\n");
		exit(1);
	}
	if (shared)
		make_shared(dev);
	pps = bench_run(dev, pool, threads, burst, nq, run_secs);
	mqtx_dev_destroy(dev);
	mqtx_pool_destroy(pool);
	return pps / 1e6;
}

static double median(unsigned threads, unsigned burst, unsigned nq, bool shared)
{
	double v[REPS];

	for (int r = 0; r < REPS; r++)
		v[r] = measure(threads, burst, nq, shared);
	return bench_median(v, REPS);
}

int main(int argc, char **argv)
{
	static const unsigned bursts[] = { 1, 32 };

	if (argc > 1)
		run_secs = atof(argv[1]);
	bench_frames_init();
	for (unsigned t = 1; t <= 2; t++)
		for (unsigned b = 0; b < 2; b++)
			for (unsigned nq = 1; nq <= 4; nq *= 2) {
				double per = median(t, bursts[b], nq, false);
				double sh = median(t, bursts[b], nq, true);

				printf("bench=xmit threads=%u burst=%u queues=%u perq_mpps=%.2f "
				       "shared_mpps=%.2f perq_ns_per_pkt=%.1f ratio=%.2f\n",
				       t, bursts[b], nq, per, sh, 1e3 / per * t, per / sh);
				fflush(stdout);
			}
	return 0;
}
