// SPDX-License-Identifier: MIT
/* bench/hop: the queue hop alone, one thread, no hashing, no driver: a burst of packets into
 * an mqtx pfifo under its queue lock and out again, next to DPDK's rte_ring (multi-producer/
 * multi-consumer and single-producer/single-consumer) enqueue+dequeue of the same pointers in
 * the same run, as DPDK's ring_perf_autotest measures it on a single lcore. Nanoseconds per
 * packet (one enqueue and one dequeue), medians of REPS interleaved repetitions. */
#include <stdio.h>
#include <stdlib.h>

#include <rte_ring.h>

#include <mqtx/qdisc.h>

#include "bench_run.h"

#define RING_SIZE 1024
#define MAX_BURST 32
#define CHUNK	  4096 /* bursts between two looks at the clock */

enum kind { K_MQTX, K_MPMC, K_SPSC, KINDS };

static const char *const kind_name[KINDS] = { "mqtx_pfifo", "rte_ring_mpmc", "rte_ring_spsc" };

static unsigned reps = 5;
static double secs = 0.1;
static struct mqtx_pkt *pkts[MAX_BURST];
static struct mqtx_qdisc *pfifo;
static struct rte_ring *ring[KINDS];

/* rte_ring_init() on memory of our own: no EAL, no hugepages, nothing of DPDK but the ring. */
static struct rte_ring *make_ring(unsigned flags)
{
	ssize_t size = rte_ring_get_memsize(RING_SIZE);
	struct rte_ring *r = aligned_alloc(RTE_CACHE_LINE_SIZE, (size_t)size);

	if (!r || rte_ring_init(r, flags ? "spsc" : "mpmc", RING_SIZE, flags)) {
		fprintf(stderr, "hop: rte_ring_init failed\n");
		exit(1);
	}
	return r;
}

static void hop_mqtx(unsigned burst)
{
	struct mqtx_pkt *to_free = NULL;

	mqtx_qdisc_lock(pfifo);
	for (unsigned i = 0; i < burst; i++)
		pfifo->ops->enqueue(pfifo, pkts[i], &to_free);
	mqtx_qdisc_unlock(pfifo);
	mqtx_qdisc_lock(pfifo);
	for (unsigned i = 0; i < burst; i++)
		pkts[i] = pfifo->ops->dequeue(pfifo);
	mqtx_qdisc_unlock(pfifo);
}

static void hop_ring(struct rte_ring *r, unsigned burst)
{
	if (burst == 1) {
		void *p = NULL;

		rte_ring_enqueue(r, pkts[0]);
		rte_ring_dequeue(r, &p);
		pkts[0] = p;
		return;
	}
	rte_ring_enqueue_bulk(r, (void *const *)pkts, burst, NULL);
	rte_ring_dequeue_bulk(r, (void **)pkts, burst, NULL);
}

/* ns per packet of @k at @burst over about @secs. */
static double measure(enum kind k, unsigned burst)
{
	uint64_t n = 0;
	double t0 = bench_now(), t;

	do {
		for (int i = 0; i < CHUNK; i++)
			if (k == K_MQTX)
				hop_mqtx(burst);
			else
				hop_ring(ring[k], burst);
		n += (uint64_t)CHUNK * burst;
		t = bench_now() - t0;
	} while (t < secs);
	return t * 1e9 / (double)n;
}

static void setup(void)
{
	struct mqtx_dev_cfg cfg = { .name = "hop0", .ops = &mqtx_null_ops, .num_txq = 1 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;

	if (mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 256, .data_room = 128 }, &pool) ||
	    mqtx_dev_create(&cfg, &dev) ||
	    mqtx_qdisc_create(dev, mqtx_dev_txq(dev, 0), mqtx_qdisc_lookup("pfifo"), 0, NULL, NULL,
			      &pfifo)) {
		fprintf(stderr, "hop: setup failed\n");
		exit(1);
	}
	for (int i = 0; i < MAX_BURST; i++) {
		pkts[i] = mqtx_pkt_alloc(pool);
		bench_build_frame(pkts[i], (uint32_t)i);
	}
	ring[K_MPMC] = make_ring(0);
	ring[K_SPSC] = make_ring(RING_F_SP_ENQ | RING_F_SC_DEQ);
}

int main(int argc, char **argv)
{
	static const unsigned bursts[] = { 1, 8, 32 };

	bench_init(argc, argv, &reps, &secs);
	bench_ncpu();
	bench_pin(0);
	setup();
	for (unsigned b = 0; b < sizeof(bursts) / sizeof(bursts[0]); b++) {
		double v[KINDS][16], med[KINDS];

		for (unsigned r = 0; r < reps; r++)
			for (int k = 0; k < KINDS; k++)
				v[k][r] = measure((enum kind)k, bursts[b]);
		for (int k = 0; k < KINDS; k++)
			med[k] = bench_median(v[k], reps);
		printf("bench=hop burst=%u %s_ns=%.2f %s_ns=%.2f %s_ns=%.2f vs_mpmc=%.2f "
		       "vs_spsc=%.2f reps=%u\n",
		       bursts[b], kind_name[K_MQTX], med[K_MQTX], kind_name[K_MPMC], med[K_MPMC],
		       kind_name[K_SPSC], med[K_SPSC], med[K_MQTX] / med[K_MPMC],
		       med[K_MQTX] / med[K_SPSC], reps);
		fflush(stdout);
	}
	return 0;
}
