// SPDX-License-Identifier: MIT
/* Multi-threaded stress: sender threads × queues × ring sizes, with a completion thread and
 * a thread that stops and wakes queues at random. At the end every packet is transmitted,
 * dropped with a reason, or still queued, and every flow arrived in order.
 * The soak (test_soak, sized by MQTX_SOAK_THREADS, _QUEUES, _SECONDS; make soak) adds what
 * configuration does under traffic, phase after phase. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <mqtx/ctl.h>

#include "helpers.h"

#define FLOWS_PER_THREAD 32
#define MAX_Q		 16
#define MAX_THREADS	 32
#define MAX_FLOWS	 (MAX_THREADS * FLOWS_PER_THREAD)
#define TAKEN_MARK	 (1ull << 63) /* in pkt->user: the driver has this packet */

struct ring {
	pthread_mutex_t lock;
	struct mqtx_pkt *slot[1024];
	unsigned len;
};

struct drv {
	unsigned ring_size;
	struct ring ring[MAX_Q];
	/* seq + 1 of the last packet of each flow seen on each queue: a flow keeps its order on
	 * a queue, whatever moves it between queues (a change of real_num_txq) */
	uint32_t last_seq[MAX_FLOWS][MAX_Q];
	atomic_ullong taken, completed, order_errors, twice;
};

static unsigned drv_xmit(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			 unsigned n, bool more)
{
	struct drv *d = mqtx_dev_priv(dev);
	struct ring *r = &d->ring[mqtx_txq_index(txq)];
	unsigned i;

	(void)more;
	pthread_mutex_lock(&r->lock);
	for (i = 0; i < n && r->len < d->ring_size; i++) {
		uint64_t flow = pkts[i]->user >> 32 & 0x7fffffff, seq = pkts[i]->user & 0xffffffffu;
		uint32_t *last = &d->last_seq[flow][mqtx_txq_index(txq)];

		/* One queue's calls are serialised: no race on its column. */
		if (seq < *last) /* gaps are drops; going back is a reorder */
			atomic_fetch_add(&d->order_errors, 1);
		*last = (uint32_t)seq + 1;
		/* A packet handed over twice before its completion freed it. */
		if (pkts[i]->user & TAKEN_MARK)
			atomic_fetch_add(&d->twice, 1);
		pkts[i]->user |= TAKEN_MARK;
		r->slot[r->len++] = pkts[i];
	}
	/* Stop before the ring is full, as a driver should. */
	if (r->len >= d->ring_size)
		mqtx_txq_stop(txq);
	pthread_mutex_unlock(&r->lock);
	atomic_fetch_add(&d->taken, i);
	return i;
}

static uint32_t drv_inflight(struct mqtx_dev *dev, struct mqtx_txq *txq)
{
	struct drv *d = mqtx_dev_priv(dev);
	struct ring *r = &d->ring[mqtx_txq_index(txq)];
	uint32_t n;

	pthread_mutex_lock(&r->lock);
	n = r->len;
	pthread_mutex_unlock(&r->lock);
	return n;
}

/* Packets in every ring. */
static uint32_t drv_inflight_all(struct mqtx_dev *dev)
{
	uint32_t n = 0;

	for (unsigned q = 0; q < mqtx_dev_num_txq(dev); q++)
		n += drv_inflight(dev, mqtx_dev_txq(dev, q));
	return n;
}

static const struct mqtx_dev_ops drv_ops = {
	.kind = "stress",
	.xmit_burst = drv_xmit,
	.inflight = drv_inflight,
};

/* One completion round, held as a section: the queues it wakes run at its end, here. */
static void complete_all(struct mqtx_dev *dev)
{
	struct drv *d = mqtx_dev_priv(dev);

	mqtx_bh_disable();
	for (unsigned q = 0; q < mqtx_dev_num_txq(dev); q++) {
		struct ring *r = &d->ring[q];
		unsigned n;

		pthread_mutex_lock(&r->lock);
		n = r->len;
		mqtx_pkt_free_bulk(r->slot, n);
		r->len = 0;
		pthread_mutex_unlock(&r->lock);
		atomic_fetch_add(&d->completed, n);
		mqtx_txq_wake(mqtx_dev_txq(dev, q));
	}
	mqtx_bh_enable();
}

struct run {
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	atomic_bool stop;
	unsigned per_thread;
	unsigned burst;
	unsigned id;
	atomic_ullong sent, nomem;
};

struct sender {
	struct run *run;
	unsigned id;
};

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct run *run = s->run;
	uint32_t seq[FLOWS_PER_THREAD] = { 0 };
	unsigned rng = s->id * 7919 + 1;

	for (unsigned i = 0; i < run->per_thread;) {
		struct mqtx_pkt *b[32];
		unsigned n = 0;

		while (n < run->burst && i < run->per_thread) {
			unsigned f =
				(rng = rng * 1103515245 + 12345) >> 16 & (FLOWS_PER_THREAD - 1);
			unsigned flow = s->id * FLOWS_PER_THREAD + f;
			struct mqtx_pkt *p = test_udp_pkt(run->pool, 0x0a100000 + flow,
							  (uint16_t)(1000 + flow), 80, 0);

			if (!p) {
				atomic_fetch_add(&run->nomem, 1);
				sched_yield();
				continue;
			}
			p->user = (uint64_t)flow << 32 | seq[f]++;
			b[n++] = p;
			i++;
		}
		atomic_fetch_add(&run->sent, n);
		if (run->burst == 1)
			mqtx_dev_xmit(run->dev, b[0]);
		else
			mqtx_dev_xmit_burst(run->dev, b, n);
	}
	return NULL;
}

static void *completer_main(void *arg)
{
	struct run *run = arg;

	while (!atomic_load(&run->stop)) {
		complete_all(run->dev);
		sched_yield();
	}
	return NULL;
}

static void *chaos_main(void *arg)
{
	struct run *run = arg;
	unsigned rng = 99, nq = mqtx_dev_num_txq(run->dev);

	while (!atomic_load(&run->stop)) {
		struct mqtx_txq *t = mqtx_dev_txq(run->dev, (rng = rng * 1103515245 + 12345) % nq);

		if (rng & 0x10000)
			mqtx_txq_stop(t);
		else
			mqtx_txq_wake(t);
		if ((rng & 0x3f0000) == 0) {
			mqtx_dev_lock_all(run->dev);
			mqtx_dev_unlock_all(run->dev);
		}
		/* No section: its wakes run on the TX thread. */
		sched_yield();
	}
	return NULL;
}

static unsigned env_num(const char *name, unsigned dflt, unsigned max)
{
	const char *v = getenv(name);
	unsigned long n = v && *v ? strtoul(v, NULL, 10) : dflt;

	return n < 1 ? 1 : n > max ? max : (unsigned)n;
}

/* MQTX_STRESS_PACKETS: packets per sender thread of the fixed cases (50000). */
static void stress(unsigned threads, unsigned nq, unsigned ring, unsigned burst)
{
	struct mqtx_dev_cfg cfg = { .name = "s0",
				    .ops = &drv_ops,
				    .num_txq = nq,
				    .priv_size = sizeof(struct drv),
				    .tx_queue_len = 64 };
	struct run run = { .per_thread = env_num("MQTX_STRESS_PACKETS", 50000, 100000000),
			   .burst = burst };
	pthread_t th[4], comp, chaos;
	struct sender snd[4];
	struct mqtx_dev_stats st;
	struct drv *d;

	assert_int_equal(
		mqtx_pool_create(&(struct mqtx_pool_cfg){ .count = 16384, .data_room = 128 },
				 &run.pool),
		0);
	assert_int_equal(mqtx_dev_create(&cfg, &run.dev), 0);
	d = mqtx_dev_priv(run.dev);
	d->ring_size = ring;
	for (unsigned q = 0; q < nq; q++)
		pthread_mutex_init(&d->ring[q].lock, NULL);
	assert_int_equal(mqtx_dev_open(run.dev), 0);

	pthread_create(&comp, NULL, completer_main, &run);
	pthread_create(&chaos, NULL, chaos_main, &run);
	for (unsigned t = 0; t < threads; t++) {
		snd[t] = (struct sender){ &run, t };
		pthread_create(&th[t], NULL, sender_main, &snd[t]);
	}
	for (unsigned t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	atomic_store(&run.stop, true);
	pthread_join(comp, NULL);
	pthread_join(chaos, NULL);

	/* Drain: wake everything and complete until the device is exactly empty; the section
	 * makes this thread run what it wakes (the TX thread may still be finishing a run of
	 * the chaos thread's wakes, hence a bound rather than one pass). */
	for (int i = 0; i < 100000 && !mqtx_dev_all_tx_empty(run.dev); i++) {
		mqtx_bh_disable();
		mqtx_dev_wake_all_queues(run.dev);
		complete_all(run.dev);
		mqtx_bh_enable();
		if (i > 1000)
			sched_yield();
	}
	assert_true(mqtx_dev_all_tx_empty(run.dev));
	mqtx_dev_get_stats(run.dev, &st);
	assert_int_equal(st.xmit, (uint64_t)threads * run.per_thread);
	assert_int_equal(st.xmit, atomic_load(&run.sent));
	/* Conservation: sent = transmitted + dropped (with a reason) + queued (0 now). */
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st) + st.txq.qlen);
	assert_int_equal(st.txq.qlen, 0);
	assert_int_equal(st.txq.packets, atomic_load(&d->taken));
	assert_int_equal(atomic_load(&d->taken), atomic_load(&d->completed));
	/* Only the qdisc limit may drop here. */
	assert_int_equal(test_drops(&st), st.txq.drops[MQTX_DROP_QDISC]);
	assert_int_equal(atomic_load(&d->order_errors), 0);
	assert_int_equal(atomic_load(&d->twice), 0);
	mqtx_dev_destroy(run.dev);
	assert_int_equal(mqtx_pool_in_use(run.pool), 0);
	mqtx_pool_destroy(run.pool);
}

static void test_2t_4q_ring16_burst1(void **s)
{
	(void)s;
	stress(2, 4, 16, 1);
}

static void test_2t_4q_ring64_burst32(void **s)
{
	(void)s;
	stress(2, 4, 64, 32);
}

static void test_3t_2q_ring4_burst8(void **s)
{
	(void)s;
	stress(3, 2, 4, 8);
}

static void test_4t_8q_ring256_burst16(void **s)
{
	(void)s;
	stress(4, 8, 256, 16);
}

static void test_2t_1q_ring1_burst4(void **s)
{
	(void)s;
	stress(2, 1, 1, 4);
}

/* ---- the soak: configuration under traffic, phase after phase ---- */

/* Allocation failures injected into one thread only: the one changing the configuration. */
static _Thread_local unsigned long fi_fail_at, fi_count;

static void *fi_alloc(size_t size, size_t align, void *arg)
{
	if (fi_fail_at && ++fi_count == fi_fail_at)
		return NULL;
	return mqtx_default_alloc(size, align, arg);
}

static const struct mqtx_allocator fi_allocator = { fi_alloc, mqtx_default_free, NULL };

struct soak {
	struct run run;
	struct mqtx_ctl *ctl;
	unsigned threads, queues, seconds, phases;
	unsigned rng; /* of the configuration thread, across phases: the same changes every run */
	atomic_bool stop_senders;
	uint32_t seq[MAX_FLOWS]; /* next sequence number of each flow, across phases */
	/* what the configuration thread did, over the whole soak */
	unsigned long changes, refused, injected, unchanged_after_failure;
};

struct soak_sender {
	struct soak *sk;
	unsigned id;
};

static void *soak_sender_main(void *arg)
{
	struct soak_sender *s = arg;
	struct soak *sk = s->sk;
	unsigned rng = s->id * 7919 + 17;

	while (!atomic_load(&sk->stop_senders)) {
		struct mqtx_pkt *b[16];
		unsigned n = 0, burst = 1 + (rng >> 20) % 16;

		while (n < burst) {
			unsigned f =
				(rng = rng * 1103515245 + 12345) >> 16 & (FLOWS_PER_THREAD - 1);
			unsigned flow = s->id * FLOWS_PER_THREAD + f;
			struct mqtx_pkt *p = test_udp_pkt(sk->run.pool, 0x0a100000 + flow,
							  (uint16_t)(1000 + flow), 80, 0);

			if (!p)
				break;
			p->user = (uint64_t)flow << 32 | sk->seq[flow]++;
			b[n++] = p;
		}
		if (!n) {
			atomic_fetch_add(&sk->run.nomem, 1);
			sched_yield();
			continue;
		}
		atomic_fetch_add(&sk->run.sent, n);
		if (n == 1)
			mqtx_dev_xmit(sk->run.dev, b[0]);
		else
			mqtx_dev_xmit_burst(sk->run.dev, b, n);
		/* Let the completion thread have its share of the cores, so that the queues
		 * move rather than only overflow. */
		sched_yield();
	}
	return NULL;
}

static int soak_cmd(struct soak *sk, const char *line, char **out)
{
	struct mqtx_buf o, e;
	int rc;

	mqtx_buf_init(&o);
	mqtx_buf_init(&e);
	rc = mqtx_ctl_exec_line(sk->ctl, line, 0, &o, &e);
	if (out)
		*out = strdup(o.data ? o.data : "");
	mqtx_buf_free(&o);
	mqtx_buf_free(&e);
	return rc;
}

/* htb prints a counter among its options (tc's direct_packets_stat): it moves with the
 * traffic, so it is left out of the comparison. */
static void soak_mask_counters(char *show)
{
	for (char *c = show; (c = strstr(c, "direct_packets_stat "));) {
		char *d;

		c += strlen("direct_packets_stat ");
		for (d = c; *d >= '0' && *d <= '9'; d++)
			;
		memmove(c, d, strlen(d) + 1);
	}
}

/* A configuration change that fails at its @k-th allocation changes nothing: the qdiscs,
 * handles and options are what they were (their counters move with the traffic). */
static void soak_failing(struct soak *sk, const char *line, unsigned k)
{
	char *before, *after;
	int rc;

	assert_int_equal(soak_cmd(sk, "qdisc show dev s0", &before), 0);
	fi_count = 0;
	fi_fail_at = k;
	rc = soak_cmd(sk, line, NULL);
	fi_fail_at = 0;
	assert_int_equal(soak_cmd(sk, "qdisc show dev s0", &after), 0);
	if (rc) {
		sk->injected++;
		soak_mask_counters(before);
		soak_mask_counters(after);
		assert_string_equal(before, after);
		sk->unchanged_after_failure++;
	}
	free(before);
	free(after);
}

static const char *const soak_leaves[] = {
	"pfifo limit 64",
	"fq_codel limit 256 flows 16",
	"codel limit 128 target 1ms interval 20ms",
	"tbf rate 1gbit burst 64kb limit 64kb",
	"pfifo_fast",
	"prio bands 3",
	"bfifo limit 20000",
	"htb r2q 5 direct_qlen 256",
	"ets bands 3 strict 1 quanta 1500 3000",
	"fq",
	"fq flow_limit 50 maxrate 1gbit",
};
#define N_LEAVES (sizeof(soak_leaves) / sizeof(soak_leaves[0]))

/* One random change of the configuration, as a user would type it. */
static void soak_change(struct soak *sk, unsigned *rng)
{
	unsigned r = (*rng = *rng * 1103515245 + 12345) >> 8, q = 1 + r % sk->queues;
	const char *leaf = soak_leaves[(r >> 8) % N_LEAVES];
	char line[160];
	int rc = 0;

	switch ((r >> 16) % 8) {
	case 0: /* per-queue qdiscs under mq */
		rc = soak_cmd(sk, "qdisc replace dev s0 root handle 1: mq", NULL);
		break;
	case 1: /* one leaf of mq, under traffic */
		snprintf(line, sizeof(line), "qdisc replace dev s0 parent 1:%x %s", q, leaf);
		rc = soak_cmd(sk, line, NULL);
		break;
	case 2: /* one qdisc for every queue: the single-lock design */
		snprintf(line, sizeof(line), "qdisc replace dev s0 root handle 2: %s", leaf);
		rc = soak_cmd(sk, line, NULL);
		break;
	case 3: /* the queues in use */
		snprintf(line, sizeof(line), "dev set s0 txqueues %u", q);
		rc = soak_cmd(sk, line, NULL);
		break;
	case 4: /* down (what is queued is dropped as such) and up again */
		assert_int_equal(soak_cmd(sk, "dev set s0 down", NULL), 0);
		rc = soak_cmd(sk, "dev set s0 up", NULL);
		break;
	case 5: /* a change that runs out of memory on the way */
		snprintf(line, sizeof(line), "qdisc replace dev s0 root handle 3: %s", leaf);
		soak_failing(sk, (r >> 20) & 1 ? line : "qdisc replace dev s0 root handle 1: mq",
			     1 + (r >> 21) % 6);
		break;
	case 6: /* freeze every queue, briefly */
		mqtx_dev_lock_all(sk->run.dev);
		mqtx_dev_unlock_all(sk->run.dev);
		break;
	default: /* back to the defaults */
		rc = soak_cmd(sk, "qdisc del dev s0 root", NULL);
		break;
	}
	sk->changes++;
	/* Refusals are fine (a leaf of an mq that is not there): they must change nothing,
	 * which the fault cases check. */
	sk->refused += rc != 0;
}

static void *soak_config_main(void *arg)
{
	struct soak *sk = arg;
	unsigned long injected = sk->injected;

	/* Every phase has at least one replacement that fails under traffic and is checked to
	 * have changed nothing, however few changes the rest of the phase has time for. */
	for (unsigned k = 1; k <= 64 && sk->injected == injected; k++)
		soak_failing(sk, "qdisc replace dev s0 root handle 3: fq_codel limit 256 flows 16",
			     k);
	assert_true(sk->injected > injected);
	while (!atomic_load(&sk->run.stop)) {
		soak_change(sk, &sk->rng);
		sched_yield();
	}
	return NULL;
}

/* Drain the device exactly and check the books. */
static void soak_check(struct soak *sk, unsigned phase)
{
	struct drv *d = mqtx_dev_priv(sk->run.dev);
	struct timespec t0, t;
	struct mqtx_dev_stats st;

	assert_int_equal(soak_cmd(sk, "dev set s0 up", NULL), 0);
	/* tbf's watchdog and the TX thread release the rest: wait for them, bounded. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		mqtx_bh_disable();
		mqtx_dev_wake_all_queues(sk->run.dev);
		complete_all(sk->run.dev);
		mqtx_bh_enable();
		if (mqtx_dev_all_tx_empty(sk->run.dev) && !drv_inflight_all(sk->run.dev))
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		assert_true(t.tv_sec - t0.tv_sec < 30);
		sched_yield();
	}
	mqtx_dev_get_stats(sk->run.dev, &st);
	/* Conservation: sent = transmitted + dropped (each reason) + queued, and queued is 0. */
	assert_int_equal(st.xmit, atomic_load(&sk->run.sent));
	assert_int_equal(st.xmit, st.txq.packets + test_drops(&st) + st.txq.qlen);
	assert_int_equal(st.txq.qlen, 0);
	assert_int_equal(st.txq.backlog, 0);
	assert_int_equal(st.txq.packets, atomic_load(&d->taken));
	assert_int_equal(atomic_load(&d->taken), atomic_load(&d->completed));
	assert_int_equal(atomic_load(&d->order_errors), 0);
	assert_int_equal(atomic_load(&d->twice), 0);
	/* The pool is whole: every packet came back. */
	assert_int_equal(mqtx_pool_in_use(sk->run.pool), 0);
	printf("soak phase=%u sent=%llu transmitted=%llu dropped=%llu", phase,
	       (unsigned long long)st.xmit, (unsigned long long)st.txq.packets,
	       (unsigned long long)test_drops(&st));
	for (int r = 0; r < MQTX_DROP_REASON_MAX; r++)
		if (st.txq.drops[r])
			printf(" %s=%llu", mqtx_drop_reason_name(r),
			       (unsigned long long)st.txq.drops[r]);
	printf(" queued=%llu\n", (unsigned long long)st.txq.qlen);
}

static void soak_phase(struct soak *sk, unsigned phase, unsigned ms)
{
	struct soak_sender snd[MAX_THREADS];
	pthread_t th[MAX_THREADS], comp, chaos, cfg;
	struct timespec len = { ms / 1000, (long)(ms % 1000) * 1000000 };

	atomic_store(&sk->stop_senders, false);
	atomic_store(&sk->run.stop, false);
	pthread_create(&comp, NULL, completer_main, &sk->run);
	pthread_create(&chaos, NULL, chaos_main, &sk->run);
	pthread_create(&cfg, NULL, soak_config_main, sk);
	for (unsigned t = 0; t < sk->threads; t++) {
		snd[t] = (struct soak_sender){ sk, t };
		pthread_create(&th[t], NULL, soak_sender_main, &snd[t]);
	}
	nanosleep(&len, NULL);
	atomic_store(&sk->stop_senders, true);
	for (unsigned t = 0; t < sk->threads; t++)
		pthread_join(th[t], NULL);
	atomic_store(&sk->run.stop, true);
	pthread_join(cfg, NULL);
	pthread_join(chaos, NULL);
	pthread_join(comp, NULL);
	soak_check(sk, phase);
}

static void test_soak(void **state)
{
	struct soak *sk = calloc(1, sizeof(*sk));
	struct mqtx_dev_cfg cfg = {
		.name = "s0", .ops = &drv_ops, .priv_size = sizeof(struct drv), .tx_queue_len = 128
	};
	struct mqtx_pool_cfg pc = { .count = 8192, .data_room = 128 };
	struct drv *d;
	unsigned ms;

	(void)state;
	assert_non_null(sk);
	sk->threads = env_num("MQTX_SOAK_THREADS", 4, MAX_THREADS);
	sk->queues = env_num("MQTX_SOAK_QUEUES", 4, MAX_Q);
	sk->seconds = env_num("MQTX_SOAK_SECONDS", 3, 24 * 3600);
	sk->phases = env_num("MQTX_SOAK_PHASES", sk->seconds < 3 ? 3 : sk->seconds, 100000);
	ms = sk->seconds * 1000 / sk->phases;
	sk->rng = 4242;
	mqtx_set_allocator(&fi_allocator);
	cfg.num_txq = sk->queues;
	assert_int_equal(mqtx_pool_create(&pc, &sk->run.pool), 0);
	assert_int_equal(mqtx_dev_create(&cfg, &sk->run.dev), 0);
	d = mqtx_dev_priv(sk->run.dev);
	d->ring_size = 32;
	for (unsigned q = 0; q < sk->queues; q++)
		pthread_mutex_init(&d->ring[q].lock, NULL);
	assert_int_equal(mqtx_dev_open(sk->run.dev), 0);
	assert_int_equal(mqtx_ctl_new(&sk->ctl), 0);
	assert_int_equal(mqtx_ctl_add_dev(sk->ctl, sk->run.dev), 0);
	for (unsigned p = 1; p <= sk->phases; p++)
		soak_phase(sk, p, ms ? ms : 1);
	/* At rest: nothing moves, nothing is held. */
	soak_check(sk, 0);
	printf("soak threads=%u queues=%u seconds=%u phases=%u sent=%llu changes=%lu "
	       "refused=%lu injected=%lu unchanged=%lu nomem_waits=%llu\n",
	       sk->threads, sk->queues, sk->seconds, sk->phases,
	       (unsigned long long)atomic_load(&sk->run.sent), sk->changes, sk->refused,
	       sk->injected, sk->unchanged_after_failure,
	       (unsigned long long)atomic_load(&sk->run.nomem));
	/* At least one change per phase failed by injection and was checked. */
	assert_true(sk->unchanged_after_failure >= sk->phases);
	mqtx_ctl_free(sk->ctl); /* destroys the device */
	assert_int_equal(mqtx_pool_in_use(sk->run.pool), 0);
	mqtx_pool_destroy(sk->run.pool);
	mqtx_set_allocator(NULL);
	free(sk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2t_4q_ring16_burst1),
		cmocka_unit_test(test_2t_4q_ring64_burst32),
		cmocka_unit_test(test_3t_2q_ring4_burst8),
		cmocka_unit_test(test_4t_8q_ring256_burst16),
		cmocka_unit_test(test_2t_1q_ring1_burst4),
		cmocka_unit_test(test_soak),
	};
	const struct CMUnitTest soak_only[] = { cmocka_unit_test(test_soak) };

	/* make soak: the soak alone, as long as MQTX_SOAK_SECONDS says. */
	if (getenv("MQTX_SOAK_ONLY"))
		return cmocka_run_group_tests(soak_only, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
