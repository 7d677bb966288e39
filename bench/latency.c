// SPDX-License-Identifier: MIT
/* bench/latency: how long a high-priority packet takes from mqtx_dev_xmit() to the end of its
 * wire time while bulk traffic saturates a sim device (1 Gbit/s, a ring of 256 descriptors,
 * 20 us interrupt coalescing, pfifo_fast), without and with BQL. In virtual time: the numbers
 * are exact and repeatable, the machine's noise does not enter. One line per setting. */
#include <stdio.h>
#include <stdlib.h>

#include <mqtx/sim.h>

#include "bench_run.h"

#define STEP_NS	    10000ull /* the sender's tick */
#define RATE_BPS    1000000000ull
#define RING	    256
#define COALESCE_NS 20000ull
#define BULK_LEN    1514
#define BULK_PER    2 /* bulk frames offered per tick: 2.4 Gbit/s, twice the wire */
#define HI_LEN	    100
#define HI_PRIO	    6 /* TC_PRIO_INTERACTIVE: pfifo_fast's band 0 */
#define HI_TAG	    (1ull << 63)

static uint64_t warm_ns = 2000000000ull, run_ns = 2000000000ull;

struct lat {
	struct mqtx_clock *clock;
	double *us;
	unsigned n, cap;
	bool on; /* record only inside the measured window */
};

/* The peer's receive handler: the sim driver hands it each frame when its wire time ends. */
static void on_wire(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	struct lat *l = arg;

	(void)dev;
	if ((pkt->user & HI_TAG) && l->on && l->n < l->cap)
		l->us[l->n++] = (double)(mqtx_clock_now(l->clock) - (pkt->user & ~HI_TAG)) / 1e3;
	mqtx_pkt_free(pkt);
}

static void offer(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool, uint32_t len, uint32_t prio,
		  uint64_t user)
{
	struct mqtx_pkt *p = mqtx_pkt_alloc(pool);

	if (!p)
		return;
	memset(mqtx_pkt_put(p, len), 0, 14);
	p->priority = prio;
	p->user = user;
	mqtx_dev_xmit(dev, p);
}

static double pct(const double *v, unsigned n, double p)
{
	return n ? v[(unsigned)((double)(n - 1) * p)] : 0;
}

/* Run one setting; fills @p (p50, p99, p99.9, max in us) and returns the sample count. */
static unsigned run(bool bql, double p[4])
{
	struct mqtx_dev_cfg cfg = { .name = "lat0", .num_txq = 1 };
	struct mqtx_dev_cfg pcfg = { .name = "peer0", .ops = &mqtx_null_ops, .num_txq = 1 };
	struct mqtx_sim_cfg sim = { .ring = RING,
				    .rate_bps = RATE_BPS,
				    .coalesce_ns = COALESCE_NS };
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev, *peer;
	struct mqtx_sim_txq_stats s0, s1;
	struct mqtx_txq_stats tq;
	struct lat l = { .cap = 1u << 20 };
	uint64_t a0 = 0, x0 = 0, next_hi, rng = 0x9e3779b97f4a7c15ull;
	struct mqtx_dev_stats st;

	if (mqtx_clock_new_virtual(0, &l.clock) ||
	    mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 4096 }, &pool))
		exit(1);
	cfg.clock = pcfg.clock = l.clock;
	cfg.flags = bql ? MQTX_DEV_F_BQL : 0;
	if (mqtx_dev_create(&pcfg, &peer) || mqtx_dev_open(peer))
		exit(1);
	sim.peer = peer;
	if (mqtx_sim_dev_create(&cfg, &sim, &dev) || mqtx_dev_open(dev))
		exit(1);
	l.us = malloc(sizeof(*l.us) * l.cap);
	mqtx_dev_set_rx_handler(peer, on_wire, &l);
	next_hi = STEP_NS;
	for (uint64_t t = 0; t < warm_ns + run_ns; t += STEP_NS) {
		if (t == warm_ns) {
			l.on = true;
			mqtx_sim_stats(dev, &s0);
			mqtx_dev_get_stats(dev, &st);
			x0 = st.xmit;
			a0 = bench_alloc_count();
		}
		for (int i = 0; i < BULK_PER; i++)
			offer(dev, pool, BULK_LEN, 0, 0);
		if (t >= next_hi) {
			offer(dev, pool, HI_LEN, HI_PRIO, HI_TAG | mqtx_clock_now(l.clock));
			/* every 50-150 us: a flow that is not in step with the coalescing */
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			next_hi = t + STEP_NS * (5 + (rng >> 33) % 11);
		}
		mqtx_clock_advance(l.clock, STEP_NS);
	}
	l.on = false;
	mqtx_sim_stats(dev, &s1);
	mqtx_dev_get_stats(dev, &st);
	mqtx_txq_get_stats(mqtx_dev_txq(dev, 0), &tq);
	qsort(l.us, l.n, sizeof(l.us[0]), bench_cmp_double);
	p[0] = pct(l.us, l.n, 0.5);
	p[1] = pct(l.us, l.n, 0.99);
	p[2] = pct(l.us, l.n, 0.999);
	p[3] = l.n ? l.us[l.n - 1] : 0;
	printf("bench=latency bql=%s qdisc=pfifo_fast ring=%u rate_mbit=%llu coalesce_us=%llu "
	       "bulk_len=%u hi_len=%u samples=%u p50_us=%.1f p99_us=%.1f p999_us=%.1f "
	       "max_us=%.1f wire_util=%.3f bql_limit=%u allocs_per_kpkt=%.3f",
	       bql ? "on" : "off", RING, RATE_BPS / 1000000, COALESCE_NS / 1000, BULK_LEN, HI_LEN,
	       l.n, p[0], p[1], p[2], p[3],
	       (double)(s1.completed_bytes - s0.completed_bytes +
			(s1.completed_pkts - s0.completed_pkts) * MQTX_SIM_WIRE_OVERHEAD) *
		       8e9 / (double)RATE_BPS / (double)run_ns,
	       tq.bql_limit,
	       (double)(bench_alloc_count() - a0) * 1e3 /
		       (double)(st.xmit - x0 ? st.xmit - x0 : 1));
	mqtx_dev_destroy(dev);
	mqtx_dev_destroy(peer);
	mqtx_pool_destroy(pool);
	mqtx_clock_free(l.clock);
	free(l.us);
	return l.n;
}

int main(void)
{
	double off[4], on[4];

	bench_count_install();
	if (bench_quick())
		warm_ns = run_ns = 500000000ull;
	run(false, off);
	printf("\n");
	fflush(stdout);
	run(true, on);
	printf(" nobql_p99_us=%.1f p99_ratio=%.4f\n", off[1], off[1] > 0 ? on[1] / off[1] : 0);
	return 0;
}
