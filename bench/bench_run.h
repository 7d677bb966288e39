/* SPDX-License-Identifier: MIT */
/* Shared by the benchmarks: UDP frames from the pool, one sender thread per queue (XPS-like),
 * a timed run through the whole transmit path, medians. */
#ifndef MQTX_BENCH_RUN_H
#define MQTX_BENCH_RUN_H

#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mqtx/driver.h>
#include <mqtx/gen.h>
#include <mqtx/mqtx.h>

/* One per sender thread, on its own cache line: sender threads must share nothing the path
 * does not make them share, or the benchmark measures its own false sharing. */
struct bench_job {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	unsigned id, burst, nq;
	atomic_bool *go, *stop;
	uint64_t sent;
} __attribute__((aligned(64)));

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define BENCH_FLOWS 1024

/* The 64-byte Ethernet/IPv4/UDP frames of BENCH_FLOWS flows (source address and port vary),
 * built once by the generator's frame builder: the benchmark measures the transmit path, so a
 * sender only copies a frame. */
static uint8_t bench_frames[BENCH_FLOWS][64];

static inline void bench_frames_init(void)
{
	struct mqtx_gen_cfg g;

	mqtx_gen_cfg_default(&g);
	g.size = 64 + MQTX_GEN_FCS;
	g.flows = BENCH_FLOWS;
	g.src_lo = 0x0a000000;
	g.src_hi = 0x0a000000 + BENCH_FLOWS - 1;
	g.dst_lo = g.dst_hi = 0x0a800001;
	g.sport_lo = g.sport_hi = 1024;
	g.dport_lo = g.dport_hi = 53;
	for (uint32_t f = 0; f < BENCH_FLOWS; f++)
		if (mqtx_gen_build(&g, f, bench_frames[f], sizeof(bench_frames[f])) != 64)
			abort();
}

/* The frame of flow @flow into @p. */
static inline void bench_build_frame(struct mqtx_pkt *p, uint32_t flow)
{
	memcpy(mqtx_pkt_put(p, 64), bench_frames[flow % BENCH_FLOWS], 64);
}

/* XPS-like: each thread sends on its own queue (the flow hash is still computed). */
static inline uint16_t bench_select_by_thread(struct mqtx_dev *dev, struct mqtx_pkt *pkt,
					      void *arg)
{
	static __thread unsigned my_q = UINT32_MAX;

	(void)arg;
	mqtx_dev_pick_tx(dev, pkt);
	if (my_q == UINT32_MAX)
		my_q = (unsigned)pkt->mark;
	return (uint16_t)my_q;
}

static inline void *bench_sender(void *arg)
{
	struct bench_job *j = arg;
	struct mqtx_pkt *b[32];
	uint32_t flow = j->id * 1000;
	uint64_t sent = 0;

	while (!atomic_load_explicit(j->go, memory_order_acquire))
		;
	while (!atomic_load_explicit(j->stop, memory_order_relaxed)) {
		unsigned n = mqtx_pkt_alloc_bulk(j->pool, b, j->burst);

		for (unsigned i = 0; i < n; i++) {
			bench_build_frame(b[i], flow++ % BENCH_FLOWS);
			b[i]->mark = j->id % j->nq;
		}
		if (j->burst == 1)
			mqtx_dev_xmit(j->dev, b[0]);
		else
			mqtx_dev_xmit_burst(j->dev, b, n);
		sent += n;
	}
	j->sent = sent;
	return NULL;
}

/*
 * Send from @threads threads (thread t on queue t % nq) for @secs through the open device
 * @dev; returns the packets per second of them all. @burst: 1..32.
 */
static inline double bench_run(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool,
			       unsigned threads, unsigned burst, unsigned nq, double secs)
{
	atomic_bool go = false, stop = false;
	struct bench_job jobs[8];
	pthread_t th[8];
	uint64_t total = 0;
	double t0, t1;

	mqtx_dev_set_select_queue(dev, bench_select_by_thread, NULL);
	for (unsigned t = 0; t < threads; t++) {
		jobs[t] = (struct bench_job){ dev, pool, t, burst, nq, &go, &stop, 0 };
		pthread_create(&th[t], NULL, bench_sender, &jobs[t]);
	}
	t0 = bench_now();
	atomic_store_explicit(&go, true, memory_order_release);
	/* Sleep, do not spin: the machine may have no core to spare for the timer. */
	nanosleep(&(struct timespec){ (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) },
		  NULL);
	atomic_store(&stop, true);
	t1 = bench_now();
	for (unsigned t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		total += jobs[t].sent;
	}
	return (double)total / (t1 - t0);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n values (sorts them). */
static inline double bench_median(double *v, unsigned n)
{
	qsort(v, n, sizeof(v[0]), bench_cmp_double);
	return v[n / 2];
}

#endif
