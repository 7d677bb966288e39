// SPDX-License-Identifier: MIT
/* bench/busy: the 2-thread runs of bench/xmit on a busy machine (one CPU-bound process on every
 * core) next to the same runs on a quiet one, alternated within the run. A path whose threads
 * spin on a lock whose holder was preempted collapses here; one that does not loses about what
 * the background takes (half of each core). One line per configuration and mode. */
#include <stdio.h>
#include <stdlib.h>

#include "path.h"

#define THREADS 2

static unsigned reps = 3;
static double secs = 0.1;

static void one_config(enum bench_mode m, unsigned queues, unsigned burst)
{
	double quiet[16], busy[16], q, b;
	struct bench_busy bg;
	struct bench_result res;

	for (unsigned r = 0; r < reps; r++) {
		bench_path(m, THREADS, queues, burst, secs, &res);
		quiet[r] = res.mpps;
		bench_busy_start(&bg);
		bench_path(m, THREADS, queues, burst, secs, &res);
		bench_busy_stop(&bg);
		busy[r] = res.mpps;
	}
	q = bench_median(quiet, reps);
	b = bench_median(busy, reps);
	printf("bench=busy mode=%s threads=%u queues=%u burst=%u background=%u quiet_mpps=%.3f "
	       "busy_mpps=%.3f ratio=%.3f reps=%u\n",
	       bench_mode_name[m], THREADS, queues, burst, bench_ncpu(), q, b, q > 0 ? b / q : 0,
	       reps);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const unsigned queues[] = { 1, 2 }, bursts[] = { 1, 8, 32 };

	bench_init(argc, argv, &reps, &secs);
	for (int m = 0; m < BENCH_MODES; m++)
		for (unsigned q = 0; q < sizeof(queues) / sizeof(queues[0]); q++)
			for (unsigned b = 0; b < sizeof(bursts) / sizeof(bursts[0]); b++)
				one_config((enum bench_mode)m, queues[q], bursts[b]);
	return 0;
}
