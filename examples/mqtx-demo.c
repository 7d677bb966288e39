// SPDX-License-Identifier: MIT
/* mqtx-demo: UDP flows from two threads into a 4-queue sim NIC; per-queue table and totals. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mqtx/gen.h>
#include <mqtx/mqtx.h>
#include <mqtx/sim.h>

#define NUM_TXQ	    4
#define NUM_SENDERS 2
#define RING	    256
#define FLOWS	    256 /* per sender */
#define FRAME_LEN   128 /* Ethernet frame without FCS */
#define BURST	    32

struct sender {
	pthread_t thread;
	unsigned id;
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	uint64_t offered, accepted, no_buffer, backoffs;
};

static atomic_bool stop;

/* Sender @id's flows: 10.0.<id>.1 ports 10000.. to 10.1.0.1..250:5001, from the generator's
 * frame builder (valid IPv4 and UDP checksums, the frame number in the payload). */
static void sender_flows(struct mqtx_gen_cfg *g, unsigned id)
{
	mqtx_gen_cfg_default(g);
	g->size = FRAME_LEN + MQTX_GEN_FCS;
	g->flows = FLOWS;
	g->src_lo = g->src_hi = 0x0a000001u | id << 8;
	g->dst_lo = 0x0a010001u;
	g->dst_hi = 0x0a0100fau;
	g->sport_lo = 10000;
	g->sport_hi = 10000 + FLOWS - 1;
	g->dport_lo = g->dport_hi = 5001;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct mqtx_pkt *pkts[BURST];
	struct mqtx_gen_cfg g;
	uint64_t seq = 0;
	unsigned acc;

	sender_flows(&g, s->id);

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned n = mqtx_pkt_alloc_bulk(s->pool, pkts, BURST);

		if (!n) {
			/* Every buffer is queued or on a ring: let the wire catch up. */
			s->no_buffer++;
			sched_yield();
			continue;
		}
		for (unsigned i = 0; i < n; i++, seq++)
			mqtx_gen_build(&g, seq, mqtx_pkt_put(pkts[i], FRAME_LEN), FRAME_LEN);
		s->offered += n;
		acc = mqtx_dev_xmit_burst(s->dev, pkts, n);
		s->accepted += acc;
		/* Dropped: the queues are full. Back off as a well-behaved sender would, so
		 * that the completion thread gets the CPU to drain the rings. */
		if (acc < n) {
			s->backoffs++;
			sched_yield();
		}
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_table(struct mqtx_dev *dev, double secs)
{
	struct mqtx_dev_stats ds;
	struct mqtx_sim_txq_stats ss;

	printf("%5s %12s %14s %10s %9s %8s %8s %9s\n", "queue", "packets", "bytes", "drops",
	       "requeues", "stops", "wakes", "ring-max");
	for (uint32_t i = 0; i < NUM_TXQ; i++) {
		struct mqtx_txq_stats ts;

		mqtx_txq_get_stats(mqtx_dev_txq(dev, i), &ts);
		mqtx_sim_txq_stats(dev, i, &ss);
		printf("%5u %12" PRIu64 " %14" PRIu64 " %10" PRIu64 " %9" PRIu64 " %8" PRIu64
		       " %8" PRIu64 " %9" PRIu64 "\n",
		       i, ts.packets, ts.bytes, mqtx_txq_stats_drops(&ts), ts.requeues, ts.stops,
		       ts.wakes, ss.ring_max);
	}
	mqtx_dev_get_stats(dev, &ds);
	mqtx_sim_stats(dev, &ss);
	printf("%5s %12" PRIu64 " %14" PRIu64 " %10" PRIu64 " %9" PRIu64 " %8" PRIu64 " %8" PRIu64
	       " %9" PRIu64 "\n",
	       "total", ds.txq.packets, ds.txq.bytes, mqtx_txq_stats_drops(&ds.txq),
	       ds.txq.requeues, ds.txq.stops, ds.txq.wakes, ss.ring_max);
	printf("drops by reason:");
	for (int r = 0; r < MQTX_DROP_REASON_MAX; r++)
		if (ds.txq.drops[r])
			printf(" %s %" PRIu64, mqtx_drop_reason_name(r), ds.txq.drops[r]);
	printf("%s\n", mqtx_txq_stats_drops(&ds.txq) ? "" : " none");
	printf("rate: %.2f Mpps, %.2f Gbit/s (frames), %.2f Gbit/s (on the wire)\n",
	       (double)ds.txq.packets / secs / 1e6, (double)ds.txq.bytes * 8 / secs / 1e9,
	       (double)(ds.txq.bytes + ds.txq.packets * MQTX_SIM_WIRE_OVERHEAD) * 8 / secs / 1e9);
}

/* sent = transmitted + dropped + queued; the driver's part: transmitted = completed + on the
 * rings + flushed. Returns true when both hold. */
static bool print_conservation(struct mqtx_dev *dev)
{
	struct mqtx_dev_stats ds;
	struct mqtx_sim_txq_stats ss;
	uint64_t drops;
	bool ok;

	mqtx_dev_get_stats(dev, &ds);
	mqtx_sim_stats(dev, &ss);
	drops = mqtx_txq_stats_drops(&ds.txq);
	ok = ds.xmit == ds.txq.packets + drops + ds.txq.qlen &&
	     ds.txq.packets == ss.completed_pkts + ss.ring + ss.flushed;
	printf("conservation: sent %" PRIu64 " = transmitted %" PRIu64 " + dropped %" PRIu64
	       " + queued %" PRIu64 "; transmitted = completed %" PRIu64 " + on rings %" PRIu64
	       " + flushed %" PRIu64 ": %s\n",
	       ds.xmit, ds.txq.packets, drops, ds.txq.qlen, ss.completed_pkts, ss.ring, ss.flushed,
	       ok ? "OK" : "MISMATCH");
	return ok;
}

static int usage(void)
{
	fprintf(stderr, "usage: mqtx-demo [seconds] [packets/s per queue]\n"
			"  defaults: 3 seconds, 1000000 packets/s per queue\n");
	return 2;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *v == 0 || *v > max ? -1 : 0;
}

static int run(struct mqtx_dev *dev, struct mqtx_pkt_pool *pool, uint64_t secs)
{
	struct sender snd[NUM_SENDERS] = { 0 };
	struct timespec ts = { (time_t)secs, 0 };
	double t0, elapsed;
	bool ok;

	t0 = now_s();
	for (unsigned i = 0; i < NUM_SENDERS; i++) {
		snd[i] = (struct sender){ .id = i, .dev = dev, .pool = pool };
		if (pthread_create(&snd[i].thread, NULL, sender_main, &snd[i])) {
			fprintf(stderr, "mqtx-demo: cannot start a sender thread\n");
			atomic_store(&stop, true);
			for (unsigned j = 0; j < i; j++)
				pthread_join(snd[j].thread, NULL);
			return 1;
		}
	}
	nanosleep(&ts, NULL);
	atomic_store(&stop, true);
	for (unsigned i = 0; i < NUM_SENDERS; i++)
		pthread_join(snd[i].thread, NULL);
	elapsed = now_s() - t0;
	/* Let the wire drain what the queues still hold (at most a second). */
	for (int i = 0; i < 1000 && !mqtx_dev_all_tx_empty(dev); i++) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	for (unsigned i = 0; i < NUM_SENDERS; i++)
		printf("sender %u: offered %" PRIu64 ", accepted %" PRIu64 ", backed off %" PRIu64
		       ", waited for buffers %" PRIu64 "\n",
		       i, snd[i].offered, snd[i].accepted, snd[i].backoffs, snd[i].no_buffer);
	printf("\n");
	print_table(dev, elapsed);
	ok = print_conservation(dev);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	uint64_t secs = 3, pps = 1000000;
	struct mqtx_dev_cfg cfg = { .name = "sim0", .num_txq = NUM_TXQ };
	struct mqtx_sim_cfg sim = { .ring = RING };
	struct mqtx_pool_cfg pool_cfg = { .count = 32768 };
	struct mqtx_pkt_pool *pool = NULL;
	struct mqtx_dev *dev = NULL;
	int err, rc;

	if (argc > 3 || (argc > 1 && parse_u64(argv[1], 3600, &secs)) ||
	    (argc > 2 && parse_u64(argv[2], 1000000000, &pps)))
		return usage();
	sim.rate_pps = pps;
	err = mqtx_pool_create(&pool_cfg, &pool);
	if (!err)
		err = mqtx_sim_dev_create(&cfg, &sim, &dev);
	if (!err)
		err = mqtx_dev_open(dev);
	if (err) {
		fprintf(stderr, "mqtx-demo: %s\n", mqtx_strerror(err));
		mqtx_dev_destroy(dev);
		mqtx_pool_destroy(pool);
		return 1;
	}
	printf("mqtx-demo: %s, %u TX queues, ring %u, wire %.2f Mpps per queue, %u senders x %u "
	       "UDP flows, %u-byte frames, %" PRIu64 " s\n",
	       mqtx_dev_name(dev), NUM_TXQ, RING, (double)pps / 1e6, NUM_SENDERS, FLOWS, FRAME_LEN,
	       secs);
	rc = run(dev, pool, secs);
	mqtx_dev_destroy(dev);
	mqtx_pool_destroy(pool);
	return rc;
}
