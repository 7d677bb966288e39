/* SPDX-License-Identifier: MIT */
/* The transmit path measured three ways on the null driver: mqtx as built, one lock for the
 * whole device, and the ceiling (a bare single-producer ring per queue, no qdisc, no lock). */
#ifndef MQTX_BENCH_PATH_H
#define MQTX_BENCH_PATH_H

#include <mqtx/qdisc.h>

#include "bench_run.h"

#define BENCH_MAX_THREADS 256
#define BENCH_MAX_BURST	  32
#define BENCH_MAX_QUEUES  64
#define BENCH_RING	  64 /* ceiling ring slots: two bursts, drained after each */

enum bench_mode { BENCH_MQTX, BENCH_ONELOCK, BENCH_CEILING, BENCH_MODES };

static const char *const bench_mode_name[BENCH_MODES] = { "mqtx", "onelock", "ceiling" };

/*
 * The queues each sender may use: with at least as many queues as threads, thread t owns
 * queues t, t + T, t + 2T, ...; with fewer, threads share queue t % Q. The library's XPS
 * (mqtx_dev_set_xps()) gives each CPU the queues of the senders pinned to it, and chooses as
 * Linux's get_xps_queue(): a map of one queue as is, a longer one by the flow hash scaled onto
 * its length (the hash computed only then). The ceiling applies the same maps by itself.
 */
struct bench_xps {
	unsigned n;
	uint16_t q[BENCH_MAX_QUEUES];
};

static inline void bench_xps_init(struct bench_xps *x, unsigned t, unsigned threads,
				  unsigned queues)
{
	x->n = 0;
	if (queues < threads) {
		x->q[x->n++] = (uint16_t)(t % queues);
		return;
	}
	for (unsigned q = t; q < queues && x->n < BENCH_MAX_QUEUES; q += threads)
		x->q[x->n++] = (uint16_t)q;
}

static inline uint16_t bench_xps_pick(const struct bench_xps *x, const struct mqtx_pkt *p)
{
	return x->q[((uint64_t)p->hash * x->n) >> 32];
}

/* The ceiling's hand-off: a single-producer, single-consumer ring of packet pointers. */
struct bench_ring {
	atomic_uint head, tail;
	struct mqtx_pkt *slot[BENCH_RING];
} __attribute__((aligned(64)));

/* One per sender thread, on cache lines of its own: sender threads must share nothing the path
 * does not make them share, or the benchmark measures its own false sharing. */
struct bench_job {
	enum bench_mode mode;
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	unsigned id, burst, queues;
	struct bench_xps xps;
	struct bench_ring *rings; /* ceiling: one per queue */
	const atomic_bool *go, *stop;
	pthread_t th;
	atomic_ullong sent __attribute__((aligned(64)));
} __attribute__((aligned(64)));

/* The library's XPS on @dev for the senders @first..@last - 1 of @jobs: each queue to the CPUs
 * of the senders whose map has it (sender t runs on the t-th usable CPU, bench_pin()). Where
 * every CPU would have every queue (one sender on a multiqueue device), no map at all: the
 * same choice by flow hash, as Linux without XPS, without the lookup. */
static inline void bench_set_xps(struct mqtx_dev *dev, const struct bench_job *jobs, unsigned first,
				 unsigned last, unsigned queues)
{
	unsigned cpus[BENCH_MAX_QUEUES][BENCH_MAX_CPUS], n[BENCH_MAX_QUEUES], all = 0, full = 0;

	for (unsigned t = first; t < last; t++) {
		unsigned cpu = (unsigned)bench_cpus[t % bench_ncpu()], i = 0;

		while (i < t - first && (unsigned)bench_cpus[(first + i) % bench_ncpu()] != cpu)
			i++;
		all += i == t - first; /* a CPU not seen before */
	}
	for (unsigned q = 0; q < queues; q++) {
		n[q] = 0;
		for (unsigned t = first; t < last; t++) {
			unsigned cpu = (unsigned)bench_cpus[t % bench_ncpu()], k = 0, i = 0;

			while (k < jobs[t].xps.n && jobs[t].xps.q[k] != q)
				k++;
			while (i < n[q] && cpus[q][i] != cpu)
				i++;
			if (k < jobs[t].xps.n && i == n[q])
				cpus[q][n[q]++] = cpu;
		}
		full += n[q] == all;
	}
	for (unsigned q = 0; q < queues; q++)
		if (mqtx_dev_set_xps(dev, q, cpus[q], full == queues ? 0 : n[q])) {
			fprintf(stderr, "bench: cannot set the XPS map of queue %u\n", q);
			exit(1);
		}
}

/* What one timed window measured. @cpu: the senders' CPU seconds in it (spinning included);
 * @share: that over the time of the cores they could have had, min(threads, cores) x window:
 * below 1, something else ran on those cores (the shared VM) or the senders slept. */
struct bench_result {
	double mpps, cpu, share;
	uint64_t pkts, allocs;
	/* What the device says of the window (mqtx and onelock): taken by the driver, and
	 * dropped, per second; the slowest sender's packets over the fastest's; the busy CPUs
	 * of the whole machine (bench_cpus_busy()). */
	double delivered_mpps, drop_pct, fairness, cpus_busy;
};

static inline void bench_ceiling_burst(struct bench_job *j, struct mqtx_pkt **b, unsigned n)
{
	struct mqtx_pkt *out[BENCH_RING];
	uint64_t touched = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned q = 0, t;
		struct bench_ring *r;

		if (j->queues > 1) {
			if (j->xps.n > 1) /* the hash only to choose, as the library's XPS */
				mqtx_dev_flow_hash(j->dev, b[i]);
			q = bench_xps_pick(&j->xps, b[i]);
		}
		r = &j->rings[q];
		t = atomic_load_explicit(&r->tail, memory_order_relaxed);
		r->slot[t % BENCH_RING] = b[i];
		atomic_store_explicit(&r->tail, t + 1, memory_order_release);
		touched |= 1ull << q;
	}
	while (touched) {
		unsigned q = (unsigned)__builtin_ctzll(touched), h, t, m = 0;
		struct bench_ring *r = &j->rings[q];

		touched &= touched - 1;
		h = atomic_load_explicit(&r->head, memory_order_relaxed);
		t = atomic_load_explicit(&r->tail, memory_order_acquire);
		for (; h != t; h++)
			out[m++] = r->slot[h % BENCH_RING];
		atomic_store_explicit(&r->head, h, memory_order_release);
		/* The driver's queue is this thread's own: queue q of thread id. */
		mqtx_null_ops.xmit_burst(j->dev, mqtx_dev_txq(j->dev, j->id * j->queues + q), out,
					 m, false);
	}
}

static inline void *bench_sender(void *arg)
{
	struct bench_job *j = arg;
	struct mqtx_pkt *b[BENCH_MAX_BURST];
	uint32_t flow = j->id * 1000;
	uint64_t sent = 0;

	bench_pin(j->id);
	while (!atomic_load_explicit(j->go, memory_order_acquire))
		sched_yield();
	while (!atomic_load_explicit(j->stop, memory_order_relaxed)) {
		unsigned n = mqtx_pkt_alloc_bulk(j->pool, b, j->burst);

		for (unsigned i = 0; i < n; i++)
			bench_build_frame(b[i], flow++ & 1023);
		if (j->mode == BENCH_CEILING)
			bench_ceiling_burst(j, b, n);
		else if (j->burst == 1 && n)
			mqtx_dev_xmit(j->dev, b[0]);
		else
			mqtx_dev_xmit_burst(j->dev, b, n);
		sent += n;
		atomic_store_explicit(&j->sent, sent, memory_order_relaxed);
	}
	return NULL;
}

/* CPU seconds the sender threads have used so far. */
static inline double bench_cpu(struct bench_job *jobs, unsigned n)
{
	double s = 0;

	for (unsigned t = 0; t < n; t++) {
		struct timespec ts;
		clockid_t cid;

		if (!pthread_getcpuclockid(jobs[t].th, &cid) && !clock_gettime(cid, &ts))
			s += (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	}
	return s;
}

static inline uint64_t bench_sent(struct bench_job *jobs, unsigned n)
{
	uint64_t s = 0;

	for (unsigned t = 0; t < n; t++)
		s += atomic_load_explicit(&jobs[t].sent, memory_order_relaxed);
	return s;
}

/*
 * Start @threads senders (XPS maps over @queues), let them warm up (thread caches filled, the
 * first-touch allocations done), then measure a window of @secs: packets handed to the path
 * per second and the library allocations made meanwhile. The senders share devs[0] and
 * pools[0]; with @apart, thread t has devs[t] and pools[t] to itself.
 */
static inline void bench_send_on(enum bench_mode mode, struct mqtx_dev *const *devs,
				 struct mqtx_pkt_pool *const *pools, bool apart, unsigned threads,
				 unsigned queues, unsigned burst, double secs,
				 struct bench_result *res)
{
	static struct bench_job jobs[BENCH_MAX_THREADS];
	static uint64_t per0[BENCH_MAX_THREADS];
	atomic_bool go = false, stop = false;
	struct mqtx_dev_stats d0, d1;
	struct bench_stat_cpu m0, m1;
	uint64_t s0, a0, lo = UINT64_MAX, hi = 0;
	double t0, c0, wall;

	for (unsigned t = 0; t < threads; t++) {
		struct bench_job *j = &jobs[t];

		memset(j, 0, sizeof(*j));
		*j = (struct bench_job){ .mode = mode,
					 .dev = devs[apart ? t : 0],
					 .pool = pools[apart ? t : 0],
					 .id = t,
					 .burst = burst,
					 .queues = queues,
					 .go = &go,
					 .stop = &stop };
		bench_xps_init(&j->xps, t, threads, queues);
		if (mode == BENCH_CEILING) {
			j->rings = aligned_alloc(64, sizeof(*j->rings) * queues);
			memset(j->rings, 0, sizeof(*j->rings) * queues);
		}
		pthread_create(&j->th, NULL, bench_sender, j);
	}
	if (mode != BENCH_CEILING && queues > 1)
		for (unsigned t = 0; t < (apart ? threads : 1); t++)
			bench_set_xps(devs[t], jobs, apart ? t : 0, apart ? t + 1 : threads,
				      queues);
	atomic_store_explicit(&go, true, memory_order_release);
	bench_sleep(secs / 4 < 0.01 ? 0.01 : secs / 4);
	for (unsigned t = 0; t < threads; t++)
		per0[t] = atomic_load_explicit(&jobs[t].sent, memory_order_relaxed);
	s0 = bench_sent(jobs, threads);
	mqtx_dev_get_stats(devs[0], &d0);
	bench_stat_cpu(&m0);
	a0 = bench_alloc_count();
	c0 = bench_cpu(jobs, threads);
	t0 = bench_now();
	bench_sleep(secs);
	res->pkts = bench_sent(jobs, threads) - s0;
	mqtx_dev_get_stats(devs[0], &d1);
	bench_stat_cpu(&m1);
	res->allocs = bench_alloc_count() - a0;
	res->cpu = bench_cpu(jobs, threads) - c0;
	wall = bench_now() - t0;
	for (unsigned t = 0; t < threads; t++) {
		uint64_t n = atomic_load_explicit(&jobs[t].sent, memory_order_relaxed) - per0[t];

		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
	}
	res->mpps = (double)res->pkts / wall / 1e6;
	res->share = res->cpu / (wall * (threads < bench_ncpu() ? threads : bench_ncpu()));
	res->fairness = hi ? (double)lo / (double)hi : 0;
	res->cpus_busy = bench_cpus_busy(&m0, &m1, wall);
	res->delivered_mpps = (double)(d1.txq.packets - d0.txq.packets) / wall / 1e6;
	res->drop_pct = d1.xmit > d0.xmit ? 100.0 *
						    (double)(mqtx_txq_stats_drops(&d1.txq) -
							     mqtx_txq_stats_drops(&d0.txq)) /
						    (double)(d1.xmit - d0.xmit)
					  : 0;
	atomic_store(&stop, true);
	for (unsigned t = 0; t < threads; t++) {
		pthread_join(jobs[t].th, NULL);
		free(jobs[t].rings);
	}
}

/* Start @threads senders on @dev, drawing from @pool: see bench_send_on(). */
static inline void bench_send(enum bench_mode mode, struct mqtx_dev *dev,
			      struct mqtx_pkt_pool *pool, unsigned threads, unsigned queues,
			      unsigned burst, double secs, struct bench_result *res)
{
	bench_send_on(mode, &dev, &pool, false, threads, queues, burst, secs, res);
}

/* The pre-multiqueue design: one pfifo_fast, rooted at queue 0 (its lock), on every queue. */
static inline void bench_make_onelock(struct mqtx_dev *dev)
{
	struct mqtx_qdisc *shared, *qs[BENCH_MAX_QUEUES], *old[BENCH_MAX_QUEUES];
	unsigned n = mqtx_dev_num_txq(dev);

	mqtx_dev_config_lock(dev);
	if (mqtx_qdisc_create(dev, mqtx_dev_txq(dev, 0), mqtx_qdisc_lookup("pfifo_fast"), 0, NULL,
			      NULL, &shared)) {
		fprintf(stderr, "bench: cannot create the shared qdisc\n");
		exit(1);
	}
	for (unsigned i = 0; i < n; i++)
		qs[i] = shared;
	mqtx_dev_graft_all(dev, qs, old);
	mqtx_dev_config_unlock(dev);
	for (unsigned i = 0; i < n; i++)
		mqtx_qdisc_destroy(old[i]);
}

/* The pool every run draws from: 64-byte frames need little room; enough packets for full
 * qdiscs on every queue plus every thread's cache. */
static inline struct mqtx_pkt_pool *bench_pool(void)
{
	static struct mqtx_pkt_pool *pool;

	if (!pool &&
	    mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 1u << 17, .data_room = 128 },
			     &pool)) {
		fprintf(stderr, "bench: no packet pool\n");
		exit(1);
	}
	return pool;
}

/*
 * One timed run of @mode on a fresh null device with @queues TX queues (the ceiling's device
 * has a queue per thread and queue, so that no driver queue has two writers).
 */
static inline void bench_path(enum bench_mode mode, unsigned threads, unsigned queues,
			      unsigned burst, double secs, struct bench_result *res)
{
	struct mqtx_dev_cfg cfg = { .name = "bench", .ops = &mqtx_null_ops, .num_txq = queues };
	struct mqtx_dev *dev;

	if (mode == BENCH_CEILING)
		cfg.num_txq = threads * queues;
	if (mqtx_dev_create(&cfg, &dev) || (mode != BENCH_CEILING && mqtx_dev_open(dev))) {
		fprintf(stderr, "bench: cannot set up the device\n");
		exit(1);
	}
	if (mode == BENCH_ONELOCK)
		bench_make_onelock(dev);
	bench_send(mode, dev, bench_pool(), threads, queues, burst, secs, res);
	mqtx_dev_destroy(dev);
}

/*
 * The sharing check (what perf c2c would show on a machine with memory-sampling counters): the
 * same @threads senders on the same @queues-queue path, once on one device and pool (mqtx as
 * built) and once each on a device and pool of its own, sharing no memory at all. Equal rates
 * mean the path writes no cache line that two senders on different queues both write.
 */
static inline void bench_apart(unsigned threads, unsigned queues, unsigned burst, double secs,
			       struct bench_result *res)
{
	struct mqtx_dev_cfg cfg = { .name = "apart", .ops = &mqtx_null_ops, .num_txq = queues };
	struct mqtx_pkt_pool *pools[BENCH_MAX_THREADS] = { 0 };
	struct mqtx_dev *devs[BENCH_MAX_THREADS] = { 0 };

	for (unsigned t = 0; t < threads; t++)
		if (mqtx_dev_create(&cfg, &devs[t]) || mqtx_dev_open(devs[t]) ||
		    mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 1u << 15, .data_room = 128 },
				     &pools[t])) {
			fprintf(stderr, "bench: cannot set up device %u apart\n", t);
			exit(1);
		}
	bench_send_on(BENCH_MQTX, devs, pools, true, threads, queues, burst, secs, res);
	for (unsigned t = 0; t < threads; t++) {
		mqtx_dev_destroy(devs[t]);
		mqtx_pool_destroy(pools[t]);
	}
}

#endif
