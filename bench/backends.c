// SPDX-License-Identifier: MIT
/* Backend benchmark: Mpps of mqtx's af_packet and af_xdp drivers on a veth pair in a network
 * namespace of its own, next to the kernel's own paths measured in the same run: AF_PACKET
 * through the kernel's mq + pfifo_fast, AF_PACKET with the qdisc bypass (sendmmsg, and the
 * TPACKET_V3 TX ring). af_xdp twice: frames built in place in the UMEM (a pool of frames the
 * device adopts), and from an ordinary pool (one copy each). 64-byte frames (60 without FCS),
 * 1 and 2 threads, each on its own queue; medians of 5 runs, the modes interleaved run by run.
 * One line per result. Needs root; prints a skip line otherwise. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mqtx/af_packet.h>
#include <mqtx/af_xdp.h>
#include <mqtx/gen.h>
#include <mqtx/mqtx.h>

#include "bench_run.h"

#define FRAME	    60
#define BATCH	    32
#define RUNS_MAX    5
#define RING_FRAMES 1024

enum mode { K_QDISC, K_BYPASS, K_TXRING, M_AFP, M_XDP, M_XDP_COPY, MODES };

static const char *const mode_name[MODES] = {
	"kernel-qdisc",	  "kernel-bypass", "kernel-txring",
	"mqtx-af_packet", "mqtx-af_xdp",   "mqtx-af_xdp-copy",
};

/* Frames of each af_xdp mode that went out in place and that were copied, over all its runs. */
static uint64_t in_place[MODES], copied[MODES];

struct worker {
	enum mode mode;
	unsigned id;
	int fd;
	struct mqtx_dev *dev;
	struct mqtx_pkt_pool *pool;
	atomic_bool *stop;
	uint64_t sent;
	pthread_t t;
} __attribute__((aligned(64)));

static uint8_t frame[FRAME];
static unsigned runs = RUNS_MAX;
static double run_sec = 0.4;

static int sh(const char *cmd)
{
	int rc = system(cmd);

	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static int afp_socket(bool bypass)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_ifindex = (int)if_nametoindex("bva") };
	int fd = socket(AF_PACKET, SOCK_RAW, 0), one = 1;

	if (fd < 0 || (bypass && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, 4)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -1;
	return fd;
}

static void send_mmsg(struct worker *w)
{
	struct mmsghdr mm[BATCH];
	struct iovec iov = { .iov_base = frame, .iov_len = FRAME };

	for (int i = 0; i < BATCH; i++)
		mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };
	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		int r = sendmmsg(w->fd, mm, BATCH, MSG_DONTWAIT);

		if (r > 0)
			w->sent += (unsigned)r;
	}
}

/* TPACKET_V3 TX ring: frames written in place, one send() per batch (net/packet/af_packet.c
 * tpacket_snd()); a slot is free again when the kernel sets it back to AVAILABLE. */
static void send_txring(struct worker *w)
{
	struct tpacket_req3 req = { .tp_block_size = 1 << 16,
				    .tp_frame_size = 2048,
				    .tp_block_nr = RING_FRAMES * 2048 / (1 << 16),
				    .tp_frame_nr = RING_FRAMES };
	int v = TPACKET_V3, one = 1;
	size_t size = (size_t)req.tp_block_size * req.tp_block_nr;
	const size_t off = TPACKET3_HDRLEN - sizeof(struct sockaddr_ll);
	uint8_t *ring;
	unsigned slot = 0;

	if (setsockopt(w->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) ||
	    setsockopt(w->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, 4) ||
	    setsockopt(w->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)))
		return;
	ring = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
	if (ring == MAP_FAILED)
		return;
	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		unsigned n = 0;

		for (; n < BATCH; n++) {
			struct tpacket3_hdr *h = (void *)(ring + (size_t)slot * 2048);

			if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) != TP_STATUS_AVAILABLE)
				break;
			memcpy((uint8_t *)h + off, frame, FRAME);
			h->tp_len = FRAME;
			h->tp_next_offset = 0;
			__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
			slot = (slot + 1) % RING_FRAMES;
		}
		if (n && send(w->fd, NULL, 0, MSG_DONTWAIT) >= 0)
			w->sent += n;
	}
	munmap(ring, size);
}

static void send_mqtx(struct worker *w)
{
	struct mqtx_pkt *pkts[BATCH];

	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		unsigned n = mqtx_pkt_alloc_bulk(w->pool, pkts, BATCH);

		for (unsigned i = 0; i < n; i++) {
			memcpy(mqtx_pkt_put(pkts[i], FRAME), frame, FRAME);
			pkts[i]->queue_mapping = (uint16_t)w->id;
			pkts[i]->flags |= MQTX_PKT_F_QMAP_SET;
		}
		mqtx_dev_xmit_burst(w->dev, pkts, n);
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;

	bench_pin(w->id);
	if (w->mode == K_TXRING)
		send_txring(w);
	else if (w->dev)
		send_mqtx(w);
	else
		send_mmsg(w);
	return NULL;
}

static void xstat_cb(const char *name, uint64_t v, void *arg)
{
	enum mode m = *(enum mode *)arg;

	if (!strcmp(name, "in_place"))
		in_place[m] += v;
	else if (!strcmp(name, "copied"))
		copied[m] += v;
}

/* @umem: the pool of frames mqtx-af_xdp's device takes as its UMEM. */
static struct mqtx_dev *mk_dev(enum mode m, unsigned nt, struct mqtx_pkt_pool *umem)
{
	struct mqtx_dev_cfg c = { .name = "bench0", .num_txq = nt };
	struct mqtx_af_packet_cfg ac = { .ifname = "bva" };
	struct mqtx_af_xdp_cfg xc = { .ifname = "bva", .mode = MQTX_XDP_COPY };
	struct mqtx_dev *dev = NULL;
	int err = m == M_AFP   ? mqtx_af_packet_dev_create(&c, &ac, &dev)
		  : m == M_XDP ? mqtx_af_xdp_dev_create_with_pool(&c, &xc, umem, &dev)
			       : mqtx_af_xdp_dev_create(&c, &xc, &dev);

	if (err || mqtx_dev_open(dev)) {
		fprintf(stderr, "backends: %s: cannot create the device\n", mode_name[m]);
		mqtx_dev_destroy(dev);
		return NULL;
	}
	return dev;
}

/* One timed run of @m with @nt threads, mqtx's senders taking packets from @pool (@umem for
 * mqtx-af_xdp); Mpps taken by the kernel (or by the mqtx driver). */
static double run_once(enum mode m, unsigned nt, struct mqtx_pkt_pool *pool,
		       struct mqtx_pkt_pool *umem)
{
	struct worker w[2];
	atomic_bool stop = false;
	struct mqtx_dev *dev = NULL;
	struct mqtx_dev_stats st;
	uint64_t sent = 0, before = 0;
	double t0, t1;

	/* The kernel's multiqueue default, spelled out: mq and a pfifo_fast on each queue
	 * (whatever net.core.default_qdisc says on this machine). */
	if (m == K_QDISC)
		sh("tc qdisc replace dev bva root handle 1: mq && "
		   "tc qdisc replace dev bva parent 1:1 pfifo_fast && "
		   "tc qdisc replace dev bva parent 1:2 pfifo_fast");
	else
		sh("tc qdisc del dev bva root 2>/dev/null");
	if (m == M_XDP)
		pool = umem;
	if (m >= M_AFP) {
		dev = mk_dev(m, nt, umem);
		if (!dev)
			return 0;
		mqtx_dev_get_stats(dev, &st);
		before = st.txq.packets;
	}
	memset(w, 0, sizeof(w));
	for (unsigned i = 0; i < nt; i++) {
		w[i] = (struct worker){
			.mode = m, .id = i, .dev = dev, .pool = pool, .stop = &stop, .fd = -1
		};
		if (!dev)
			w[i].fd = afp_socket(m != K_QDISC);
	}
	t0 = bench_now();
	for (unsigned i = 0; i < nt; i++)
		pthread_create(&w[i].t, NULL, worker_fn, &w[i]);
	while (bench_now() - t0 < run_sec)
		usleep(10000);
	atomic_store(&stop, true);
	for (unsigned i = 0; i < nt; i++) {
		pthread_join(w[i].t, NULL);
		sent += w[i].sent;
		if (w[i].fd >= 0)
			close(w[i].fd);
	}
	t1 = bench_now();
	if (dev) {
		mqtx_dev_get_stats(dev, &st);
		sent = st.txq.packets - before;
		if (m != M_AFP)
			mqtx_dev_xstats(dev, -1, xstat_cb, &m);
		mqtx_dev_destroy(dev);
	}
	return (double)sent / (t1 - t0) / 1e6;
}

/* The share of @m's frames that were copied, or -1 for a mode without the counters. */
static double copied_share(enum mode m)
{
	return in_place[m] + copied[m] ? (double)copied[m] / (double)(in_place[m] + copied[m]) : -1;
}

int main(void)
{
	struct mqtx_pool_cfg pc = { .count = 16384 };
	struct mqtx_pkt_pool *pool, *umem;
	struct mqtx_gen_cfg g;
	double med[MODES][3], r[MODES][RUNS_MAX];

	if (bench_quick()) {
		runs = 1;
		run_sec = 0.1;
	}
	if (geteuid() != 0 || unshare(CLONE_NEWNET)) {
		printf("bench=backends skipped=\"needs root for a network namespace\"\n");
		return 0;
	}
	if (sh("ip link set lo up && ip link add bva numtxqueues 2 numrxqueues 2 type veth peer "
	       "bvb numtxqueues 2 numrxqueues 2 && ip link set bva up && ip link set bvb up")) {
		printf("bench=backends skipped=\"cannot create a veth pair\"\n");
		return 0;
	}
	/* The generator's IPv4/UDP frame, to a MAC that is not the peer's: the peer drops it. */
	mqtx_gen_cfg_default(&g);
	g.size = FRAME + MQTX_GEN_FCS;
	if (mqtx_gen_build(&g, 0, frame, sizeof(frame)) != FRAME)
		return 1;
	if (mqtx_pool_create(&pc, &pool) || mqtx_pool_create_frames(&pc, 2048, &umem))
		return 1;
	for (unsigned nt = 1; nt <= 2; nt++) {
		/* Interleaved: each run of every mode meets about the same load. */
		memset(in_place, 0, sizeof(in_place));
		memset(copied, 0, sizeof(copied));
		for (unsigned k = 0; k < runs; k++)
			for (int m = 0; m < MODES; m++)
				r[m][k] = run_once((enum mode)m, nt, pool, umem);
		for (int m = 0; m < MODES; m++)
			med[m][nt] = bench_median(r[m], runs);
		for (int m = 0; m < MODES; m++) {
			printf("bench=backends mode=%s threads=%u frame=64 mpps=%.3f "
			       "kernel_qdisc_mpps=%.3f ratio=%.2f reps=%u",
			       mode_name[m], nt, med[m][nt], med[K_QDISC][nt],
			       med[K_QDISC][nt] > 0 ? med[m][nt] / med[K_QDISC][nt] : 0.0, runs);
			if (copied_share((enum mode)m) >= 0)
				printf(" copied_share=%.3f", copied_share((enum mode)m));
			printf("\n");
		}
		fflush(stdout);
	}
	mqtx_pool_destroy(umem);
	mqtx_pool_destroy(pool);
	/* The namespace goes with the process; remove the pair anyway, as we made it. */
	sh("ip link del bva 2>/dev/null");
	return 0;
}
