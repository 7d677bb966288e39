// SPDX-License-Identifier: MIT
/*
 * bench/filter: the cost of clsact's egress filters on the transmit path. A null device with
 * 2 TX queues (mq, pfifo_fast) and one sender thread (bench/xmit's XPS-like selection) sends
 * 64-byte UDP frames to port 53 of 1024 flows through: no clsact at all; clsact without a
 * filter; and clsact with 1, 10, 100, 1000 and 10000 flower filters of one priority that none
 * of the frames matches (every lookup is a full one), either all of one mask (dst_port
 * 0x8000+i exact: one hash table) or each of a mask of its own (dst_port 0x8000/0x8000|i:
 * as many tables as filters); and u32 with a hash table of 256 buckets keyed on the low byte
 * of the destination port (a root node that eats the IP header and links to it), 1, 100 and
 * 10000 nodes matching dst_port 0x8000+i, each in its port's bucket: a frame tries only the
 * nodes of its bucket (cls=u32 masks=hash). Every configuration is built once and measured
 * round-robin, REPS rounds, so a noisy moment of the shared machine falls on all alike; each
 * line gives the medians of CPU ns per packet (the sender's thread clock over the packets it
 * sent).
 */
#include <stdio.h>
#include <stdlib.h>

#include <mqtx/ctl.h>

#include "path.h"

#define REPS 7 /* at most */
#define NQ   2

enum masks { NONE, ONE, DISTINCT, HASH };

static const char *const masks_name[] = { "none", "one", "distinct", "hash" };

/* Each configuration: a clsact hook or not, its filters and their masks (HASH: u32's). */
static const struct config {
	bool clsact;
	unsigned rules;
	enum masks masks;
} configs[] = {
	{ false, 0, NONE },	 { true, 0, NONE },	   { true, 1, ONE },
	{ true, 10, ONE },	 { true, 100, ONE },	   { true, 1000, ONE },
	{ true, 10000, ONE },	 { true, 1, DISTINCT },	   { true, 10, DISTINCT },
	{ true, 100, DISTINCT }, { true, 1000, DISTINCT }, { true, 1, HASH },
	{ true, 100, HASH },	 { true, 10000, HASH },
};

#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

static double run_secs = 0.1;
static unsigned reps = REPS;

static void ctl_or_die(struct mqtx_ctl *ctl, const char *line)
{
	struct mqtx_buf o, e;

	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	if (mqtx_ctl_exec_line(ctl, line, 0, &o, &e) != MQTX_TC_EXIT_OK) {
		fprintf(stderr, "filter: \"%s\": %s", line, e.data ? e.data : "failed\n");
		exit(1);
	}
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
}

/* The device of configuration @c, named benchN, in @ctl. */
static struct mqtx_dev *build(struct mqtx_ctl *ctl, unsigned c)
{
	const struct config *k = &configs[c];
	char name[16], line[200];
	struct mqtx_dev_cfg cfg = { .name = name, .ops = &mqtx_null_ops, .num_txq = NQ };
	struct mqtx_dev *dev;

	snprintf(name, sizeof(name), "bench%u", c);
	if (mqtx_dev_create(&cfg, &dev) || mqtx_dev_open(dev) || mqtx_ctl_add_dev(ctl, dev)) {
		fprintf(stderr, "filter: setup failed\n");
		exit(1);
	}
	if (!k->clsact)
		return dev;
	snprintf(line, sizeof(line), "qdisc add dev %s clsact", name);
	ctl_or_die(ctl, line);
	if (k->masks == HASH) {
		snprintf(line, sizeof(line),
			 "filter add dev %s egress protocol ip prio 1 handle 1: u32 divisor 256",
			 name);
		ctl_or_die(ctl, line);
		snprintf(line, sizeof(line),
			 "filter add dev %s egress protocol ip prio 1 u32 ht 800:: match ip "
			 "protocol "
			 "17 0xff hashkey mask 0x000000ff at 20 offset at 0 mask 0f00 shift 6 eat "
			 "link 1:",
			 name);
		ctl_or_die(ctl, line);
	}
	for (unsigned i = 1; i <= k->rules; i++) {
		if (k->masks == HASH)
			snprintf(line, sizeof(line),
				 "filter add dev %s egress protocol ip prio 1 u32 ht 1:%x: match "
				 "udp "
				 "dst %u 0xffff action drop",
				 name, (0x8000 + i) & 0xFF, 0x8000 + i);
		else if (k->masks == ONE)
			snprintf(line, sizeof(line),
				 "filter add dev %s egress protocol ip prio 1 flower ip_proto udp "
				 "dst_port %u action drop",
				 name, 0x8000 + i);
		else
			snprintf(line, sizeof(line),
				 "filter add dev %s egress protocol ip prio 1 flower ip_proto udp "
				 "dst_port 0x8000/%#x action drop",
				 name, 0x8000 | i);
		ctl_or_die(ctl, line);
	}
	return dev;
}

/* Packets and library allocations of the measured windows, per configuration. */
static uint64_t tally_pkts[NCONFIGS], tally_allocs[NCONFIGS];

/* One timed window on configuration @c: CPU ns per packet. */
static double measure(struct mqtx_dev *dev, unsigned c, unsigned burst)
{
	struct bench_result res;

	bench_send(BENCH_MQTX, dev, bench_pool(), 1, NQ, burst, run_secs, &res);
	tally_pkts[c] += res.pkts;
	tally_allocs[c] += res.allocs;
	return res.pkts ? res.cpu * 1e9 / (double)res.pkts : 0;
}

static void bench(struct mqtx_dev *const *devs, unsigned burst)
{
	double ns[NCONFIGS][REPS], med[NCONFIGS];
	double one1 = 0;

	memset(tally_pkts, 0, sizeof(tally_pkts));
	memset(tally_allocs, 0, sizeof(tally_allocs));
	for (unsigned r = 0; r < reps; r++)
		for (unsigned c = 0; c < NCONFIGS; c++)
			ns[c][r] = measure(devs[c], c, burst);
	for (unsigned c = 0; c < NCONFIGS; c++) {
		med[c] = bench_median(ns[c], reps);
		if (configs[c].masks == ONE && configs[c].rules == 1)
			one1 = med[c];
	}
	for (unsigned c = 0; c < NCONFIGS; c++) {
		const struct config *k = &configs[c];
		struct mqtx_dev_stats st;

		mqtx_dev_get_stats(devs[c], &st);
		/* vs_one_rule: over one filter of one mask, the target's ratio */
		printf("bench=filter hook=%s cls=%s rules=%u masks=%s burst=%u queues=%u "
		       "ns_per_pkt=%.1f "
		       "nohook_ns_per_pkt=%.1f clsact_only_ns_per_pkt=%.1f vs_nohook=%.2f "
		       "vs_one_rule=%.2f drops=%llu allocs_per_mpkt=%.3f reps=%u\n",
		       k->clsact ? "clsact" : "none",
		       !k->rules	  ? "none"
		       : k->masks == HASH ? "u32"
					  : "flower",
		       k->rules, masks_name[k->masks], burst, NQ, med[c], med[0], med[1],
		       med[c] / med[0], one1 > 0 ? med[c] / one1 : 0,
		       (unsigned long long)mqtx_txq_stats_drops(&st.txq),
		       tally_pkts[c] ? (double)tally_allocs[c] * 1e6 / (double)tally_pkts[c] : 0.,
		       reps);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct mqtx_dev *devs[NCONFIGS];
	struct mqtx_ctl *ctl;

	bench_init(argc, argv, &reps, &run_secs);
	if (mqtx_ctl_new(&ctl))
		return 1;
	for (unsigned c = 0; c < NCONFIGS; c++)
		devs[c] = build(ctl, c);
	bench(devs, 1);
	bench(devs, 32);
	mqtx_ctl_free(ctl);
	return 0;
}
