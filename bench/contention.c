// SPDX-License-Identifier: MIT
/* bench/contention: senders that share a TX queue. 1, 2, 4 and 8 threads on one queue of the
 * null driver (a driver that never stops its queue), bursts 1 and 32, and the oversubscribed
 * runs (2x and 4x the cores' threads, one queue per core), each against one thread on one queue
 * measured in the same run, interleaved. Per line: what the driver took per second, what was
 * dropped, how evenly the senders were served, and how busy the whole machine was. */
#include <stdio.h>
#include <stdlib.h>

#include "path.h"

static unsigned reps = 5;
static double secs = 1.0;

struct config {
	unsigned threads, queues;
	const char *kind;
};

struct sample {
	double base, mpps, delivered, drop_pct, fairness, busy, share;
};

static void run_line(const struct config *c, unsigned burst)
{
	struct sample s[16];
	double v[8][16];

	/* The baseline and the configuration alternate: a noisy moment falls on both. */
	for (unsigned r = 0; r < reps; r++) {
		struct bench_result res;

		bench_path(BENCH_MQTX, 1, 1, burst, secs, &res);
		s[r].base = res.delivered_mpps;
		bench_path(BENCH_MQTX, c->threads, c->queues, burst, secs, &res);
		s[r].mpps = res.mpps;
		s[r].delivered = res.delivered_mpps;
		s[r].drop_pct = res.drop_pct;
		s[r].fairness = res.fairness;
		s[r].busy = res.cpus_busy;
		s[r].share = res.share;
	}
	for (unsigned r = 0; r < reps; r++) {
		v[0][r] = s[r].base;
		v[1][r] = s[r].mpps;
		v[2][r] = s[r].delivered;
		v[3][r] = s[r].drop_pct;
		v[4][r] = s[r].fairness;
		v[5][r] = s[r].busy;
		v[6][r] = s[r].delivered / (s[r].base > 0 ? s[r].base : 1);
		v[7][r] = s[r].share;
	}
	double base = bench_median(v[0], reps), ratio = bench_median(v[6], reps);
	double fair_min = 1;

	for (unsigned r = 0; r < reps; r++)
		fair_min = s[r].fairness < fair_min ? s[r].fairness : fair_min;
	printf("bench=contention kind=%s threads=%u queues=%u burst=%u cores=%u "
	       "delivered_mpps=%.3f offered_mpps=%.3f base_mpps=%.3f vs_one=%.2f drop_pct=%.2f "
	       "fairness=%.2f fairness_min=%.2f cpus_busy=%.2f cpu_share=%.2f window_s=%.2f "
	       "reps=%u\n",
	       c->kind, c->threads, c->queues, burst, bench_ncpu(), bench_median(v[2], reps),
	       bench_median(v[1], reps), base, ratio, bench_median(v[3], reps),
	       bench_median(v[4], reps), fair_min, bench_median(v[5], reps),
	       bench_median(v[7], reps), secs, reps);
	fflush(stdout);
}

/* bench/contention SECS THREADS QUEUES BURST: that one configuration alone, one line of
 * "bench=contention_one" per window, no baseline (bench/ab alternates two libraries with it). */
static int one_only(char **argv)
{
	unsigned t = (unsigned)atoi(argv[2]), q = (unsigned)atoi(argv[3]),
		 b = (unsigned)atoi(argv[4]);
	struct bench_result res;

	if (!t || !q || !b || t > BENCH_MAX_THREADS || q > BENCH_MAX_QUEUES ||
	    b > BENCH_MAX_BURST) {
		fprintf(stderr, "contention: bad configuration %s %s %s\n", argv[2], argv[3],
			argv[4]);
		return 2;
	}
	bench_path(BENCH_MQTX, t, q, b, secs, &res);
	printf("bench=contention_one threads=%u queues=%u burst=%u delivered_mpps=%.3f "
	       "drop_pct=%.2f cpus_busy=%.2f window_s=%.2f\n",
	       t, q, b, res.delivered_mpps, res.drop_pct, res.cpus_busy, secs);
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned bursts[] = { 1, 32 };
	struct config cfgs[8];
	unsigned n = 0, cores = bench_ncpu();

	bench_init(argc, argv, &reps, &secs);
	if (argc == 5)
		return one_only(argv);
	for (unsigned t = 1; t <= 8; t *= 2)
		cfgs[n++] = (struct config){ t, 1, "shared" };
	if (cores > 1)
		cfgs[n++] = (struct config){ cores, cores, "apart" };
	cfgs[n++] = (struct config){ 2 * cores, cores, "over2x" };
	cfgs[n++] = (struct config){ 4 * cores, cores, "over4x" };
	for (unsigned b = 0; b < sizeof(bursts) / sizeof(bursts[0]); b++)
		for (unsigned i = 0; i < n; i++)
			run_line(&cfgs[i], bursts[b]);
	return 0;
}
