// SPDX-License-Identifier: MIT
/* bench/wme: the cost of WME, next to a baseline measured in the same run.
 *   select: ns per packet of queue selection on a sim-wifi device (802.1d classification,
 *           station lookup, admission control, aggregation lookup), current and 2008
 *           classifiers, with a QoS Map and ACM; baseline: the flow-hash picker of a 4-queue
 *           sim device.
 *   e2e:    Mpps through the whole path into sim-wifi on 1 and 2 threads, in virtual time that
 *           the senders advance themselves (so the simulated medium never limits the rate: the
 *           number is what the path and the model cost in CPU); baseline: the same frames
 *           through the sim driver with an unlimited wire.
 * One line per result; medians of REPS_MAX runs (one with MQTX_BENCH_QUICK=1). */
#include <mqtx/sim.h>
#include <mqtx/sim_wifi.h>

#include "bench_run.h"

#define REPS_MAX  5
#define NFRAMES	  1024
#define BURST	  64
#define MAX_THR	  2
#define SEL_ITERS 2000000

static unsigned reps = REPS_MAX;

static double median(double *v)
{
	return bench_median(v, reps);
}

static const uint8_t *sta(unsigned n)
{
	static uint8_t m[16][6];

	m[n][0] = 0x02;
	m[n][5] = (uint8_t)n;
	return m[n];
}

/* A 128-byte IPv4/UDP frame to station @s (1..8) with DSCP @dscp, flow @flow. */
static void build(struct mqtx_pkt *p, unsigned s, unsigned dscp, unsigned flow)
{
	uint8_t *f = mqtx_pkt_put(p, 128);

	if (!f)
		abort();
	memset(f, 0, 128);
	memcpy(f, sta(s), 6);
	f[6] = 0x02;
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = (uint8_t)(dscp << 2);
	f[17] = 114;
	f[22] = 64;
	f[23] = 17;
	f[26] = 10;
	f[29] = (uint8_t)flow;
	f[30] = 10;
	f[33] = (uint8_t)s;
	f[34] = (uint8_t)(flow >> 8);
	f[35] = (uint8_t)flow;
	f[37] = 53;
}

static const unsigned dscps[8] = { 0, 46, 34, 8, 26, 18, 40, 10 };

/* ---- select ---- */

static struct mqtx_dev *wifi_dev(struct mqtx_clock *clock, const char *mode)
{
	struct mqtx_dev_cfg c = { .name = "wl0", .clock = clock };
	struct mqtx_extack ack = { "" };
	struct mqtx_dev *dev;

	if (mqtx_sim_wifi_dev_create(&c, NULL, NULL, &dev, &ack)) {
		fprintf(stderr, "wme: %s\n", ack.msg);
		exit(1);
	}
	for (unsigned s = 1; s <= 8; s++)
		mqtx_wme_sta_add(dev, sta(s), true, &ack);
	if (!strcmp(mode, "legacy")) {
		mqtx_wme_set_legacy(dev, true, &ack);
	} else if (!strcmp(mode, "qosmap_acm")) {
		struct mqtx_wme_qos_map m;

		mqtx_wme_qos_map_parse("53,2,22,6,8,15,0,7,255,255,16,31,32,39,255,255,40,47,48,63",
				       &m, &ack);
		mqtx_wme_set_qos_map(dev, &m, &ack);
		mqtx_wme_set_acm(dev, 1u << MQTX_WME_AC_VO, &ack);
	}
	return dev;
}

/* ns per mqtx_dev_select_queue() over NFRAMES prepared frames, thread CPU time. */
static double time_select(struct mqtx_dev *dev, struct mqtx_pkt **f)
{
	struct timespec a, b;
	volatile unsigned sink = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (unsigned i = 0; i < SEL_ITERS; i++) {
		struct mqtx_pkt *p = f[i % NFRAMES];

		p->flags &= (uint16_t) ~(MQTX_PKT_F_HASH_VALID | MQTX_PKT_F_NO_HASH);
		sink += mqtx_dev_select_queue(dev, p);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	(void)sink;
	return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / SEL_ITERS;
}

static void bench_select(struct mqtx_pkt_pool *pool, struct mqtx_clock *clock)
{
	static const char *modes[] = { "wme", "legacy", "qosmap_acm" };
	struct mqtx_dev_cfg bc = { .name = "sim0", .num_txq = 4, .clock = clock };
	struct mqtx_pkt *f[NFRAMES];
	double base[REPS_MAX], v[3][REPS_MAX];
	struct mqtx_dev *devs[3], *sim;

	if (mqtx_sim_dev_create(&bc, NULL, &sim))
		exit(1);
	for (unsigned m = 0; m < 3; m++)
		devs[m] = wifi_dev(clock, modes[m]);
	if (mqtx_pkt_alloc_bulk(pool, f, NFRAMES) != NFRAMES)
		exit(1);
	for (unsigned i = 0; i < NFRAMES; i++)
		build(f[i], 1 + i % 8, dscps[(i / 8) % 8], i);
	/* Round-robin, so that a noisy moment falls on all alike. */
	for (unsigned r = 0; r < reps; r++) {
		base[r] = time_select(sim, f);
		for (unsigned m = 0; m < 3; m++)
			v[m][r] = time_select(devs[m], f);
	}
	double b = median(base);

	for (unsigned m = 0; m < 3; m++) {
		double x = median(v[m]);

		printf("bench=wme op=select mode=%s ns_per_pkt=%.1f baseline=flowhash "
		       "baseline_ns_per_pkt=%.1f ratio=%.2f\n",
		       modes[m], x, b, x / b);
	}
	mqtx_pkt_free_bulk(f, NFRAMES);
	for (unsigned m = 0; m < 3; m++)
		mqtx_dev_destroy(devs[m]);
	mqtx_dev_destroy(sim);
}

/* ---- end to end ---- */

struct job {
	struct mqtx_dev *dev;
	struct mqtx_clock *clock;
	struct mqtx_pkt_pool *pool;
	unsigned id;
	uint64_t step_ns; /* virtual time each burst advances */
	atomic_bool *stop;
	uint64_t sent;
} __attribute__((aligned(64)));

static void *sender(void *arg)
{
	struct job *j = arg;
	struct mqtx_pkt *b[BURST];
	unsigned flow = 0;

	while (!atomic_load_explicit(j->stop, memory_order_relaxed)) {
		unsigned n = mqtx_pkt_alloc_bulk(j->pool, b, BURST);

		for (unsigned i = 0; i < n; i++)
			build(b[i], 1 + j->id, j->id ? 40 : 0, flow++ & 255);
		mqtx_dev_xmit_burst(j->dev, b, n);
		j->sent += n;
		/* Each sender moves time on by its burst's air time, and runs the medium. */
		mqtx_clock_advance(j->clock, j->step_ns);
	}
	return NULL;
}

/* Mpps delivered (taken by the driver) from @threads senders for @secs; *@drop_pct: what the
 * path dropped of what they offered. */
static double run_e2e(bool wifi, unsigned threads, double secs, double *drop_pct)
{
	struct mqtx_pool_cfg pc = { .count = 65536 };
	struct mqtx_dev_cfg c = { .name = "bw0", .num_txq = 4 };
	/* The fastest model: 10 Gbit/s, no backoff, 64-frame A-MPDUs. */
	struct mqtx_sim_wifi_cfg sw = { .rate_bps = 10000000000ull, .ampdu_max = 64 };
	struct mqtx_extack ack = { "" };
	atomic_bool stop = false;
	struct mqtx_dev_stats st;
	struct mqtx_pkt_pool *pool;
	struct mqtx_clock *clock;
	struct mqtx_dev *dev;
	struct job jobs[MAX_THR];
	pthread_t th[MAX_THR];
	uint64_t total = 0;
	double t0, t1;

	for (unsigned ac = 0; ac < 4; ac++)
		sw.edca[ac] = (struct mqtx_sim_wifi_edca){ 1, 0, 0, 32000000 };
	if (mqtx_pool_create(&pc, &pool) || mqtx_clock_new_virtual(1000000000ull, &clock))
		exit(1);
	c.clock = clock;
	if (wifi ? mqtx_sim_wifi_dev_create(&c, &sw, NULL, &dev, &ack)
		 : mqtx_sim_dev_create(&c, NULL, &dev))
		exit(1);
	mqtx_dev_open(dev);
	for (unsigned s = 0; wifi && s < threads; s++) {
		mqtx_wme_sta_add(dev, sta(1 + s), true, &ack);
		mqtx_wme_ba_start(dev, sta(1 + s), s ? 5 : 0, &ack);
	}
	mqtx_clock_advance(clock, 1000000);
	for (unsigned t = 0; t < threads; t++) {
		/* A 64-frame A-MPDU of 156-byte MPDUs at 10 Gbit/s: about 90 us of air. */
		jobs[t] = (struct job){ dev, clock, pool, t, 100000, &stop, 0 };
		pthread_create(&th[t], NULL, sender, &jobs[t]);
	}
	t0 = bench_now();
	nanosleep(&(struct timespec){ 0, (long)(secs * 1e9) }, NULL);
	atomic_store(&stop, true);
	t1 = bench_now();
	for (unsigned t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		total += jobs[t].sent;
	}
	mqtx_clock_advance(clock, 1000000000ull);
	mqtx_dev_get_stats(dev, &st);
	*drop_pct = total ? 100.0 * (double)mqtx_txq_stats_drops(&st.txq) / (double)total : 0;
	total = st.txq.packets;
	mqtx_dev_destroy(dev);
	mqtx_clock_free(clock);
	mqtx_pool_destroy(pool);
	return (double)total / (t1 - t0) / 1e6;
}

static void bench_e2e(void)
{
	for (unsigned t = 1; t <= MAX_THR; t++) {
		double w[REPS_MAX], s[REPS_MAX], wd = 0, sd = 0, d;

		for (unsigned r = 0; r < reps; r++) {
			s[r] = run_e2e(false, t, 0.1, &d);
			sd += d / reps;
			w[r] = run_e2e(true, t, 0.1, &d);
			wd += d / reps;
		}
		double wm = median(w), sm = median(s);

		printf("bench=wme op=e2e threads=%u burst=%u mpps=%.3f drop_pct=%.1f baseline=sim "
		       "baseline_mpps=%.3f baseline_drop_pct=%.1f ratio=%.2f\n",
		       t, BURST, wm, wd, sm, sd, wm / sm);
	}
}

int main(void)
{
	struct mqtx_pool_cfg pc = { .count = 4096 };
	struct mqtx_pkt_pool *pool;
	struct mqtx_clock *clock;

	if (bench_quick())
		reps = 1;
	if (mqtx_pool_create(&pc, &pool) || mqtx_clock_new_virtual(0, &clock))
		return 1;
	bench_select(pool, clock);
	mqtx_clock_free(clock);
	mqtx_pool_destroy(pool);
	bench_e2e();
	return 0;
}
