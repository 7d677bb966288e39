// SPDX-License-Identifier: MIT
/* bench/xmit: packets per second through the whole transmit path (frame from the pool, flow
 * hash, select, enqueue or bypass, dequeue, null driver, free) with per-queue qdiscs, and in
 * the same run the baseline: one qdisc and lock shared by every queue (the single-lock
 * design the multiqueue series replaced). One line per result; medians of REPS runs. */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mqtx/driver.h>
#include <mqtx/mqtx.h>
#include <mqtx/qdisc.h>

#define REPS 5

static double run_secs = 0.25;

struct job {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	unsigned id, burst, nq;
	atomic_bool *go, *stop;
	uint64_t sent;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void build_frame(struct mqtx_pkt *p, uint32_t flow)
{
	uint8_t *f = mqtx_pkt_put(p, 64);
	uint32_t s = htonl(0x0a000000 + flow), d = htonl(0x0a800001);

	memset(f, 0, 64);
	f[12] = 0x08;
	f[14] = 0x45;
	f[17] = 50;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, &s, 4);
	memcpy(f + 30, &d, 4);
	f[34] = (uint8_t)(flow >> 8);
	f[35] = (uint8_t)flow;
	f[37] = 53;
	f[39] = 30;
}

/* XPS-like: each thread sends on its own queue (the flow hash is still computed). */
static uint16_t select_by_thread(struct mqtx_dev *dev, struct mqtx_pkt *pkt, void *arg)
{
	static __thread unsigned my_q = UINT32_MAX;

	(void)arg;
	mqtx_dev_pick_tx(dev, pkt);
	if (my_q == UINT32_MAX)
		my_q = (unsigned)pkt->mark;
	return (uint16_t)my_q;
}

static void *sender(void *arg)
{
	struct job *j = arg;
	struct mqtx_pkt *b[32];
	uint32_t flow = j->id * 1000;

	while (!atomic_load_explicit(j->go, memory_order_acquire))
		;
	while (!atomic_load_explicit(j->stop, memory_order_relaxed)) {
		unsigned n = mqtx_pkt_alloc_bulk(j->pool, b, j->burst);

		for (unsigned i = 0; i < n; i++) {
			build_frame(b[i], flow++ & 1023);
			b[i]->mark = j->id % j->nq;
		}
		if (j->burst == 1)
			mqtx_dev_xmit(j->dev, b[0]);
		else
			mqtx_dev_xmit_burst(j->dev, b, n);
		j->sent += n;
	}
	return NULL;
}

static void make_shared(struct mqtx_dev *dev)
{
	struct mqtx_qdisc *shared, *qs[16], *old[16];

	mqtx_dev_config_lock(dev);
	if (mqtx_qdisc_create(dev, mqtx_dev_txq(dev, 0), mqtx_qdisc_lookup("pfifo_fast"), 0, NULL,
			      NULL, &shared)) {
		fprintf(stderr, "xmit: cannot create the shared qdisc\n");
		exit(1);
	}
	for (unsigned i = 0; i < mqtx_dev_num_txq(dev); i++)
		qs[i] = shared;
	mqtx_dev_graft_all(dev, qs, old);
	mqtx_dev_config_unlock(dev);
	for (unsigned i = 0; i < mqtx_dev_num_txq(dev); i++)
		mqtx_qdisc_destroy(old[i]);
}

static double measure(unsigned threads, unsigned burst, unsigned nq, bool shared)
{
	struct mqtx_dev_cfg cfg = { .name = "bench", .ops = &mqtx_null_ops, .num_txq = nq };
	atomic_bool go = false, stop = false;
	struct mqtx_pkt_pool *pool;
	struct mqtx_dev *dev;
	struct job jobs[8];
	pthread_t th[8];
	uint64_t total = 0;
	double t0, t1;

	if (mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 65536, .data_room = 256 },
			     &pool) || mqtx_dev_create(&cfg, &dev) || mqtx_dev_open(dev)) {
		fprintf(stderr, "xmit: setup failed\n");
		exit(1);
	}
	if (shared)
		make_shared(dev);
	mqtx_dev_set_select_queue(dev, select_by_thread, NULL);
	for (unsigned t = 0; t < threads; t++) {
		jobs[t] = (struct job){ dev, pool, t, burst, nq, &go, &stop, 0 };
		pthread_create(&th[t], NULL, sender, &jobs[t]);
	}
	t0 = now();
	atomic_store_explicit(&go, true, memory_order_release);
	/* Sleep, do not spin: the machine may have no core to spare for the timer. */
	nanosleep(&(struct timespec){ (time_t)run_secs,
				      (long)((run_secs - (double)(time_t)run_secs) * 1e9) }, NULL);
	atomic_store(&stop, true);
	t1 = now();
	for (unsigned t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		total += jobs[t].sent;
	}
	mqtx_dev_destroy(dev);
	mqtx_pool_destroy(pool);
	return (double)total / (t1 - t0) / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(unsigned threads, unsigned burst, unsigned nq, bool shared)
{
	double v[REPS];

	for (int r = 0; r < REPS; r++)
		v[r] = measure(threads, burst, nq, shared);
	qsort(v, REPS, sizeof(v[0]), cmp);
	return v[REPS / 2];
}

int main(int argc, char **argv)
{
	static const unsigned bursts[] = { 1, 32 };

	if (argc > 1)
		run_secs = atof(argv[1]);
	for (unsigned t = 1; t <= 2; t++)
		for (unsigned b = 0; b < 2; b++)
			for (unsigned nq = 1; nq <= 4; nq *= 2) {
				double per = median(t, bursts[b], nq, false);
				double sh = median(t, bursts[b], nq, true);

				printf("bench=xmit threads=%u burst=%u queues=%u perq_mpps=%.2f "
				       "shared_mpps=%.2f perq_ns_per_pkt=%.1f ratio=%.2f\n",
				       t, bursts[b], nq, per, sh, 1e3 / per * t, per / sh);
				fflush(stdout);
			}
	return 0;
}
