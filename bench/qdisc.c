// SPDX-License-Identifier: MIT
/* bench/qdisc: the cost of each queueing discipline next to pfifo's, measured in the same run.
 * A null device with 2 TX queues, mq at the root and the kind on both queues (set up with the
 * command language), 1 and 2 sender threads with bench/xmit's XPS-like selection (one thread
 * hashes over both queues, two threads have one each), bursts of 1 and 32. Kinds are measured
 * round-robin, REPS rounds (one with MQTX_BENCH_QUICK=1), so that a noisy moment of the shared
 * machine falls on all of them alike; each line gives the medians. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <mqtx/ctl.h>

#include "path.h"

#define REPS   7 /* at most */
#define NQ     2
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Each kind with the options it is measured with; pfifo first: the baseline. A root-only kind
 * (taprio) is the device's one root over both queues instead of a child of mq on each. */
static const struct {
	const char *name, *opts;
	unsigned classes; /* htb: this many classes, the traffic in the default one */
	bool root;	  /* one qdisc at the root over every queue (taprio) */
} kinds[] = {
	{ "pfifo", "", 0 },
	{ "pfifo_fast", "", 0 },
	{ "bfifo", "", 0 },
	{ "prio", "", 0 },
	/* far above what a core can send: the shaper's arithmetic, never its throttling */
	{ "tbf", "rate 1tbit burst 1mb limit 10mb", 0 },
	{ "codel", "", 0 },
	{ "fq_codel", "", 0 },
	/* htb against its number of classes: the lookups, events and DRR of a tree that is
	 * never short of tokens (each class 100gbit with a 10 MB bucket) */
	{ "htb", "default 1", 1 },
	{ "htb", "default 1", 16 },
	{ "htb", "default 1", 256 },
	{ "ets", "bands 3 strict 1 quanta 1514 3028", 0 },
	/* no delay: its draws and its time-sorted queue, every packet due at once */
	{ "netem", "", 0 },
	/* no maxrate: the fast path and the flows' round robin, never the pacing timer */
	{ "fq", "", 0 },
	/* one class over both queues, its gate always open: the gate and budget arithmetic */
	{ "taprio", "num_tc 1 queues 2@0 sched-entry S 01 1000000 clockid CLOCK_TAI", 0, true },
};

static double run_secs = 0.08;
static unsigned reps = REPS;

static void ctl_or_die(struct mqtx_ctl *ctl, const char *line)
{
	struct mqtx_buf o, e;

	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	if (mqtx_ctl_exec_line(ctl, line, 0, &o, &e) != MQTX_TC_EXIT_OK) {
		fprintf(stderr, "qdisc: \"%s\": %s", line, e.data ? e.data : "failed\n");
		exit(1);
	}
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
}

/* What the runs of one kind add up to besides their times. */
struct tally {
	uint64_t packets, drops, bypass;
};

/* One timed run of kind @k; returns CPU ns per packet (thread time / packets). */
static double measure(unsigned k, unsigned threads, unsigned burst, struct tally *ty)
{
	struct mqtx_dev_cfg cfg = { .name = "bench", .ops = &mqtx_null_ops, .num_txq = NQ };
	struct mqtx_dev_stats st;
	struct bench_result res;
	struct mqtx_dev *dev;
	struct mqtx_ctl *ctl;
	char line[160];
	double pps;

	if (mqtx_dev_create(&cfg, &dev) || mqtx_dev_open(dev) || mqtx_ctl_new(&ctl) ||
	    mqtx_ctl_add_dev(ctl, dev)) {
		fprintf(stderr, "qdisc: setup failed\n");
		exit(1);
	}
	if (kinds[k].root) {
		snprintf(line, sizeof(line), "qdisc replace dev bench root handle 1: %s %s",
			 kinds[k].name, kinds[k].opts);
		ctl_or_die(ctl, line);
	} else {
		ctl_or_die(ctl, "qdisc replace dev bench root handle 1: mq");
	}
	for (unsigned q = 1; q <= NQ && !kinds[k].root; q++) {
		snprintf(line, sizeof(line), "qdisc replace dev bench parent 1:%u handle %u: %s %s",
			 q, 10 + q, kinds[k].name, kinds[k].opts);
		ctl_or_die(ctl, line);
		for (unsigned c = 1; c <= kinds[k].classes; c++) {
			snprintf(line, sizeof(line),
				 "class add dev bench parent %u: classid %u:%x htb rate 100gbit "
				 "burst 10mb",
				 10 + q, 10 + q, c);
			ctl_or_die(ctl, line);
		}
	}
	bench_send(BENCH_MQTX, dev, bench_pool(), threads, NQ, burst, run_secs, &res);
	pps = res.mpps * 1e6;
	mqtx_dev_get_stats(dev, &st);
	ty->packets += st.xmit;
	ty->drops += mqtx_txq_stats_drops(&st.txq);
	ty->bypass += st.txq.bypass;
	mqtx_ctl_free(ctl); /* destroys the device; its packets go back to the pool */
	return 1e9 * threads / pps;
}

static void bench(unsigned threads, unsigned burst)
{
	double ns[NKINDS][REPS], med[NKINDS];
	struct tally ty[NKINDS] = { { 0 } };

	for (unsigned r = 0; r < reps; r++)
		for (unsigned k = 0; k < NKINDS; k++)
			ns[k][r] = measure(k, threads, burst, &ty[k]);
	for (unsigned k = 0; k < NKINDS; k++)
		med[k] = bench_median(ns[k], reps);
	for (unsigned k = 0; k < NKINDS; k++) {
		/* bypass: the share of packets that went straight to the driver (an empty
		 * work-conserving qdisc is skipped, as in Linux), so never into the qdisc. */
		char cls[24] = "";

		if (kinds[k].classes)
			snprintf(cls, sizeof(cls), " classes=%u", kinds[k].classes);
		printf("bench=qdisc kind=%s%s threads=%u burst=%u queues=%u ns_per_pkt=%.1f "
		       "pfifo_ns_per_pkt=%.1f pfifo_fast_ns_per_pkt=%.1f ratio=%.2f bypass=%.2f "
		       "drops=%llu\n",
		       kinds[k].name, cls, threads, burst, NQ, med[k], med[0], med[1],
		       med[k] / med[0],
		       ty[k].packets ? (double)ty[k].bypass / (double)ty[k].packets : 0.,
		       (unsigned long long)ty[k].drops);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	bench_init(argc, argv, &reps, &run_secs);
	for (unsigned t = 1; t <= 2; t++) {
		bench(t, 1);
		bench(t, 32);
	}
	return 0;
}
