/* SPDX-License-Identifier: MIT */
/* Shared by the benchmarks: run length and repetitions, medians, CPU placement, a counting
 * allocator, busy-machine spinners, 64-byte UDP frames and the timed sender threads. */
#ifndef MQTX_BENCH_RUN_H
#define MQTX_BENCH_RUN_H

#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mqtx/driver.h>
#include <mqtx/gen.h>
#include <mqtx/mqtx.h>

#define BENCH_MAX_CPUS 256

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep, do not spin: the machine may have no core to spare for the timer. */
static inline void bench_sleep(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts))
		;
}

/* MQTX_BENCH_QUICK=1: a smoke run (one repetition, short windows), numbers not to be quoted. */
static inline bool bench_quick(void)
{
	const char *q = getenv("MQTX_BENCH_QUICK");

	return q && *q && strcmp(q, "0") != 0;
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
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- CPUs: the ones this process may run on, in order ---- */

static int bench_cpus[BENCH_MAX_CPUS];
static unsigned bench_ncpus;

static inline unsigned bench_ncpu(void)
{
	cpu_set_t set;

	if (bench_ncpus)
		return bench_ncpus;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE && bench_ncpus < BENCH_MAX_CPUS; c++)
			if (CPU_ISSET(c, &set))
				bench_cpus[bench_ncpus++] = c;
	if (!bench_ncpus)
		bench_cpus[bench_ncpus++] = 0;
	return bench_ncpus;
}

/* Pin the calling thread to the @i-th usable CPU (modulo their number): oversubscribed runs
 * then put exactly threads / cores threads on every core, whatever the scheduler prefers. */
static inline void bench_pin(unsigned i)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(bench_cpus[i % bench_ncpu()], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* ---- the whole machine's CPU time (/proc/stat), to say what else ran ---- */

struct bench_stat_cpu {
	unsigned long long busy, all;
};

/* The machine's busy and total CPU time so far, in clock ticks (the first line of /proc/stat:
 * user nice system idle iowait irq softirq steal; idle and iowait are not busy, steal is). */
static inline void bench_stat_cpu(struct bench_stat_cpu *c)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	c->busy = c->all = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (int i = 0; i < 8; i++)
			c->all += v[i];
		c->busy = c->all - v[3] - v[4];
	}
	fclose(f);
}

/* How many CPUs were busy on average between @a and @b, @wall seconds apart: this benchmark's
 * own threads and everything else on the machine. */
static inline double bench_cpus_busy(const struct bench_stat_cpu *a, const struct bench_stat_cpu *b,
				     double wall)
{
	long hz = sysconf(_SC_CLK_TCK);

	return wall > 0 && hz > 0 ? (double)(b->busy - a->busy) / (double)hz / wall : 0;
}

/* ---- a busy machine: one CPU-bound process per core ---- */

struct bench_busy {
	pid_t pid[BENCH_MAX_CPUS];
	unsigned n;
};

/* Fork one spinning child per usable CPU, pinned to it. The children only spin (nothing that
 * could take a lock the parent's threads held at fork) and die with the parent. */
static inline void bench_busy_start(struct bench_busy *b)
{
	b->n = 0;
	for (unsigned i = 0; i < bench_ncpu(); i++) {
		pid_t pid = fork();

		if (pid == 0) {
			cpu_set_t set;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			CPU_ZERO(&set);
			CPU_SET(bench_cpus[i], &set);
			sched_setaffinity(0, sizeof(set), &set);
			for (volatile unsigned long x = 0;; x++)
				;
		}
		if (pid > 0)
			b->pid[b->n++] = pid;
	}
}

static inline void bench_busy_stop(struct bench_busy *b)
{
	for (unsigned i = 0; i < b->n; i++) {
		kill(b->pid[i], SIGKILL);
		waitpid(b->pid[i], NULL, 0);
	}
	b->n = 0;
}

/* ---- a counting allocator: every library allocation, and the bytes still live ---- */

static atomic_ullong bench_allocs, bench_frees;
static atomic_llong bench_live;

/* A header in front of each block keeps its size and alignment: the free hook gets neither. */
static inline void *bench_count_alloc(size_t size, size_t align, void *arg)
{
	uint8_t *p;

	(void)arg;
	if (align < 16)
		align = 16;
	p = mqtx_default_alloc(size + align, align, NULL);
	if (!p)
		return NULL;
	p += align;
	((size_t *)p)[-1] = size;
	((size_t *)p)[-2] = align;
	atomic_fetch_add_explicit(&bench_allocs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&bench_live, (long long)size, memory_order_relaxed);
	return p;
}

static inline void bench_count_free(void *ptr, void *arg)
{
	size_t size = ((size_t *)ptr)[-1], align = ((size_t *)ptr)[-2];

	(void)arg;
	atomic_fetch_add_explicit(&bench_frees, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&bench_live, (long long)size, memory_order_relaxed);
	mqtx_default_free((uint8_t *)ptr - align, NULL);
}

/* Install it first thing in main(), before any library object exists. */
static inline void bench_count_install(void)
{
	static const struct mqtx_allocator a = { bench_count_alloc, bench_count_free, NULL };

	mqtx_set_allocator(&a);
}

static inline uint64_t bench_alloc_count(void)
{
	return atomic_load_explicit(&bench_allocs, memory_order_relaxed);
}

static inline long long bench_live_bytes(void)
{
	return atomic_load_explicit(&bench_live, memory_order_relaxed);
}

/* What every measuring main does first: count allocations, and take the repetitions and the
 * window of a measurement (in seconds) from MQTX_BENCH_QUICK (one of 20 ms) or from argv[1]. */
static inline void bench_init(int argc, char **argv, unsigned *reps, double *secs)
{
	bench_count_install();
	if (bench_quick()) {
		*reps = 1;
		*secs = 0.02;
	}
	if (argc > 1)
		*secs = atof(argv[1]);
}

/* ---- frames ---- */

#define BENCH_FLOWS 1024

/* The 64-byte Ethernet/IPv4/UDP frames of BENCH_FLOWS flows (source address and port vary),
 * built once by the generator's frame builder: a sender only copies one. */
static uint8_t bench_frames[BENCH_FLOWS][64];
static pthread_once_t bench_frames_once = PTHREAD_ONCE_INIT;

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

/* The frame of flow @flow (of BENCH_FLOWS) into @p. */
static inline void bench_build_frame(struct mqtx_pkt *p, uint32_t flow)
{
	pthread_once(&bench_frames_once, bench_frames_init);
	memcpy(mqtx_pkt_put(p, 64), bench_frames[flow % BENCH_FLOWS], 64);
}

#endif
