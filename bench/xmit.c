// SPDX-License-Identifier: MIT
/* bench/xmit: packets per second through the whole transmit path (a 64-byte frame from the
 * pool, flow hash, XPS-like selection, enqueue or bypass, dequeue, null driver, free) for
 * 1, 2, ... up to 4x the cores' threads, 1-16 queues and bursts of 1, 8 and 32, with in the
 * same run its two baselines: one lock for the whole device, and the ceiling (no qdisc, no
 * lock). One line per configuration; medians of REPS interleaved repetitions. Then the sharing
 * check (bench_apart()): one thread per core, each on its own queue of one device, against the
 * same senders on devices and pools of their own. */
#include <stdio.h>
#include <stdlib.h>

#include "path.h"

static unsigned reps = 3;
static double secs = 0.1;

/* 1, 2, 4, 8 (the contention series on one queue), every power of two below the cores, the
 * cores, and 2x and 4x the cores (oversubscribed), in increasing order. */
static unsigned thread_counts(unsigned *out)
{
	unsigned n = 0, c = bench_ncpu();

	for (unsigned t = 1; t <= 4 * c && t <= BENCH_MAX_THREADS && n < 31; t++)
		if (((t & (t - 1)) == 0 && (t <= 8 || t < c)) || t == c || t == 2 * c || t == 4 * c)
			out[n++] = t;
	return n;
}

static void one_config(unsigned threads, unsigned queues, unsigned burst)
{
	double v[BENCH_MODES][16], med[BENCH_MODES], ns[16], share[16];
	uint64_t allocs = 0, pkts = 0;
	unsigned cores = threads < bench_ncpu() ? threads : bench_ncpu();

	/* Interleaved: a noisy moment of the shared machine falls on every mode alike. */
	for (unsigned r = 0; r < reps; r++)
		for (int m = 0; m < BENCH_MODES; m++) {
			struct bench_result res;

			bench_path((enum bench_mode)m, threads, queues, burst, secs, &res);
			v[m][r] = res.mpps;
			if (m == BENCH_MQTX) {
				allocs += res.allocs;
				pkts += res.pkts;
				ns[r] = res.pkts ? res.cpu * 1e9 / (double)res.pkts : 0;
				share[r] = res.share;
			}
		}
	for (int m = 0; m < BENCH_MODES; m++)
		med[m] = bench_median(v[m], reps);
	printf("bench=xmit threads=%u queues=%u burst=%u cores=%u mqtx_mpps=%.3f "
	       "onelock_mpps=%.3f ceiling_mpps=%.3f mqtx_cpu_ns_per_pkt=%.1f cpu_share=%.2f "
	       "vs_onelock=%.2f of_ceiling=%.2f allocs_per_mpkt=%.3f reps=%u\n",
	       threads, queues, burst, cores, med[BENCH_MQTX], med[BENCH_ONELOCK],
	       med[BENCH_CEILING], bench_median(ns, reps), bench_median(share, reps),
	       med[BENCH_ONELOCK] > 0 ? med[BENCH_MQTX] / med[BENCH_ONELOCK] : 0,
	       med[BENCH_CEILING] > 0 ? med[BENCH_MQTX] / med[BENCH_CEILING] : 0,
	       pkts ? (double)allocs * 1e6 / (double)pkts : 0, reps);
	fflush(stdout);
}

static void sharing_check(unsigned burst)
{
	unsigned threads = bench_ncpu() < 16 ? bench_ncpu() : 16;
	double shared[16], apart[16];

	for (unsigned r = 0; r < reps; r++) {
		struct bench_result res;

		bench_path(BENCH_MQTX, threads, threads, burst, secs, &res);
		shared[r] = res.mpps;
		bench_apart(threads, threads, burst, secs, &res);
		apart[r] = res.mpps;
	}
	double a = bench_median(apart, reps), m = bench_median(shared, reps);

	printf("bench=sharing threads=%u queues=%u burst=%u shared_mpps=%.3f apart_mpps=%.3f "
	       "ratio=%.2f reps=%u\n",
	       threads, threads, burst, m, a, a > 0 ? m / a : 0, reps);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const unsigned queues[] = { 1, 2, 4, 8, 16 }, bursts[] = { 1, 8, 32 };
	unsigned threads[32], nt;

	bench_init(argc, argv, &reps, &secs);
	nt = thread_counts(threads);
	for (unsigned t = 0; t < nt; t++)
		for (unsigned q = 0; q < sizeof(queues) / sizeof(queues[0]); q++)
			for (unsigned b = 0; b < sizeof(bursts) / sizeof(bursts[0]); b++)
				one_config(threads[t], queues[q], bursts[b]);
	for (unsigned b = 0; b < sizeof(bursts) / sizeof(bursts[0]); b++)
		sharing_check(bursts[b]);
	return 0;
}
