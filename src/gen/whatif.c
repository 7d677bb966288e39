// SPDX-License-Identifier: MIT
// What-if: a capture streamed through a sim device in virtual time, every frame at its
// timestamp through the whole transmit path, its delay taken when its last bit leaves the wire
// and its drop, with the reason, when its packet comes back to the pool.
#include <errno.h>
#include <net/ethernet.h>
#include <stdio.h>
#include <string.h>

#include <mqtx/clock.h>
#include <mqtx/pkt.h>
#include <mqtx/sim.h>

#include "base/internal.h"
#include "gen/gen.h"
#include "gen/whatif.h"

/* pkt->drop_reason of a frame whose last bit left the wire, and of one nothing dropped yet:
 * both outside the reasons and MQTX_PKT_DROP_RX, so a drop's own mark replaces them. */
#define MARK_DONE  0xfe
#define MARK_FRESH 0xfd
/* pkt->user: the arrival (ns after the first frame) above the flow's index. */
#define FLOW_BITS 10
#define FLOW_MASK ((1u << FLOW_BITS) - 1)
_Static_assert(MQTX_WHATIF_FLOWS_MAX < FLOW_MASK, "the flow index and other fit");

/* Packets come from pools made as the backlog needs them: the first holds POOL_FIRST packets,
 * each next one twice the one before; frames of up to SMALL_ROOM bytes from pools of their own,
 * a quarter of the memory a packet of the device's MTU takes (what a deep queue of small frames
 * keeps in the cache and the TLB, and what a new pool clears). */
#define POOL_FIRST 1024
#define POOLS_MAX  16
#define SMALL_ROOM 256
#define HEADROOM   128

/* The pools of one size of packet. */
struct pool_class {
	struct mqtx_pkt_pool *pools[POOLS_MAX];
	unsigned npools;
	struct mqtx_pkt_pool *warm; /* the pool of this size's packet freed last */
	uint32_t data_room;
};

struct run {
	struct mqtx_dev *dev, *peer;
	struct mqtx_clock *clk;
	uint64_t start; /* the clock when the first frame arrives */
	const struct mqtx_whatif_capture *cap;
	struct mqtx_whatif_result *r;
	struct pool_class cls[2]; /* frames of up to SMALL_ROOM bytes, the others */
	/* drops of the device before the run, and those put down to a reason since */
	uint64_t base[MQTX_DROP_REASON_MAX], told[MQTX_DROP_REASON_MAX];
	uint64_t last_bin; /* the backlog bin sampled last, + 1 (0: none yet) */
	bool plot;
};

static struct mqtx_whatif_acc *queue_acc(struct run *w, const struct mqtx_pkt *pkt)
{
	struct mqtx_whatif_result *r = w->r;

	return &r->queues[pkt->queue_mapping < r->nq ? pkt->queue_mapping : 0];
}

static struct mqtx_whatif_acc *flow_acc(struct run *w, const struct mqtx_pkt *pkt)
{
	unsigned f = (unsigned)(pkt->user & FLOW_MASK);

	return &w->r->flows[f <= w->r->nflows ? f : w->r->nflows];
}

static void acc_sent(struct mqtx_whatif_acc *a, uint32_t len, uint64_t delay)
{
	a->sent++;
	a->sent_bytes += len;
	mqtx__whatif_hist_add(&a->delay, delay);
}

static void acc_drop(struct mqtx_whatif_acc *a, unsigned reason)
{
	a->dropped++;
	a->drops[reason]++;
}

/* The peer's receive handler: the wire finished the frame now. */
static void wire_done(struct mqtx_dev *peer, struct mqtx_pkt *pkt, void *arg)
{
	struct run *w = arg;
	uint64_t now = mqtx_clock_now(w->clk) - w->start, arrival = pkt->user >> FLOW_BITS;
	uint64_t delay = now - arrival;
	struct mqtx_whatif_acc *q = queue_acc(w, pkt);

	(void)peer;
	acc_sent(&w->r->total, pkt->len, delay);
	acc_sent(flow_acc(w, pkt), pkt->len, delay);
	acc_sent(q, pkt->len, delay);
	q->packets++;
	q->bytes += pkt->len;
	pkt->drop_reason = MARK_DONE;
	mqtx_pkt_free(pkt);
}

/* A drop whose packet carries no reason (a path that counts before freeing without marking):
 * the reason whose counter is ahead of what was put down to it. */
static unsigned unmarked_reason(struct run *w)
{
	struct mqtx_dev_stats st;

	mqtx_dev_get_stats(w->dev, &st);
	for (unsigned r = 0; r < MQTX_DROP_REASON_MAX; r++)
		if (st.txq.drops[r] - w->base[r] > w->told[r])
			return r;
	return MQTX_DROP_QDISC;
}

/* The pools' release hook: a packet that did not finish on the wire was dropped. */
static void released(void *arg, struct mqtx_pkt *pkt)
{
	struct run *w = arg;
	unsigned r = pkt->drop_reason;
	struct mqtx_whatif_acc *q;

	w->cls[pkt->buf_size > SMALL_ROOM + HEADROOM].warm = pkt->pool;
	/* the next frame of its size is copied here: the line has been cold since its enqueue */
	__builtin_prefetch(pkt->buf + HEADROOM, 1);
	if (r == MARK_DONE)
		return;
	if (r >= MQTX_DROP_REASON_MAX)
		r = unmarked_reason(w);
	w->told[r]++;
	q = queue_acc(w, pkt);
	acc_drop(&w->r->total, r);
	acc_drop(flow_acc(w, pkt), r);
	acc_drop(q, r);
	q->packets++;
	q->bytes += pkt->len;
}

/* A packet for a frame of @len bytes from the pool of its size whose packet was freed last (its
 * lines are still in the cache: a pool gives back the packet it took back last), else from the
 * first pool of its size that has one, else from a new pool. */
static struct mqtx_pkt *take_pkt(struct run *w, uint32_t len)
{
	struct pool_class *c = &w->cls[len > SMALL_ROOM];
	struct mqtx_pool_cfg pc = { .data_room = c->data_room, .headroom = HEADROOM };
	struct mqtx_pkt *pkt;

	if (c->warm && (pkt = mqtx_pkt_alloc(c->warm)))
		return pkt;
	for (unsigned i = 0; i < c->npools; i++)
		if (c->pools[i] != c->warm && (pkt = mqtx_pkt_alloc(c->pools[i])))
			return pkt;
	if (c->npools == POOLS_MAX)
		return NULL;
	pc.count = POOL_FIRST << c->npools;
	if (mqtx_pool_create(&pc, &c->pools[c->npools]))
		return NULL;
	mqtx__pool_set_release(c->pools[c->npools], released, w);
	c->warm = c->pools[c->npools++];
	return mqtx_pkt_alloc(c->warm);
}

/* ---- the backlog curves ---- */

/* Time ran past the last point: pairs of points merge into one of twice the span. */
static void halve(struct mqtx_whatif_result *r)
{
	for (uint32_t q = 0; q < r->nq; q++) {
		uint64_t *b = r->backlog + (size_t)q * MQTX_WHATIF_SAMPLES;

		for (unsigned i = 0; i < MQTX_WHATIF_SAMPLES / 2; i++)
			b[i] = b[2 * i] > b[2 * i + 1] ? b[2 * i] : b[2 * i + 1];
		memset(b + MQTX_WHATIF_SAMPLES / 2, 0, MQTX_WHATIF_SAMPLES / 2 * sizeof(*b));
	}
	r->sample_ns *= 2;
	r->nsamples = (r->nsamples + 1) / 2;
}

/* Every queue's backlog, once per point (at the first event that falls in it). */
static void sample(struct run *w)
{
	struct mqtx_whatif_result *r = w->r;
	uint64_t bin;

	if (!w->plot)
		return;
	bin = (mqtx_clock_now(w->clk) - w->start) / r->sample_ns;
	if (bin >= MQTX_WHATIF_SAMPLES) {
		while (bin >= MQTX_WHATIF_SAMPLES) {
			halve(r);
			bin /= 2;
		}
		w->last_bin = 0;
	}
	if (w->last_bin == bin + 1)
		return;
	w->last_bin = bin + 1;
	for (uint32_t q = 0; q < r->nq; q++) {
		struct mqtx_txq_stats st;
		uint64_t *b = &r->backlog[(size_t)q * MQTX_WHATIF_SAMPLES + bin];

		mqtx_txq_get_stats(mqtx_dev_txq(w->dev, q), &st);
		if (st.backlog > *b)
			*b = st.backlog;
	}
	if (bin + 1 > r->nsamples)
		r->nsamples = (unsigned)bin + 1;
}

/* ---- the run ---- */

/*
 * The run holds a section of its own, so that the queues a frame or a timer schedules run here,
 * at the instant they were scheduled, and never on the TX thread (where a section sends what
 * its rounds left: a deep ring without BQL takes more than they send), which would make the run
 * depend on the machine. SETTLE_ROUNDS bounds a driver that refuses without stopping: what it
 * still refuses is retried at the next event.
 */
#define SETTLE_ROUNDS 64

static void settle(void)
{
	for (unsigned i = 0; i < SETTLE_ROUNDS && mqtx_tx_action(); i++)
		;
}

/* Time moves to @to timer by timer, the queues each one woke run at its instant. */
static void advance(struct run *w, uint64_t to)
{
	uint64_t next;

	while ((next = mqtx_clock_next_timer(w->clk)) <= to) {
		mqtx_clock_advance_to(w->clk, next);
		settle();
	}
	mqtx_clock_advance_to(w->clk, to);
}

/* One record at @t (ns after the first): its frame into the device, or counted as skipped. */
static int offer(struct run *w, int dlt, const struct pcap_pkthdr *h, const u_char *data,
		 uint64_t t)
{
	static const struct mqtx_replay_cfg plain;
	struct mqtx_whatif_key k;
	struct mqtx_pkt *pkt;
	uint16_t type;
	long len = mqtx__cooked_len(dlt, data, h->caplen, &type);
	uint32_t max = mqtx_dev_mtu(w->dev) + ETHER_HDR_LEN +
		       (type == ETHERTYPE_VLAN || type == 0x88a8 ? 4 : 0);
	unsigned f;

	if (len < 0)
		return 0;
	if ((uint64_t)len > max) {
		w->r->skipped++;
		return 0;
	}
	pkt = take_pkt(w, (uint32_t)len);
	if (!pkt)
		return -ENOMEM;
	if (!mqtx_pkt_put(pkt, (uint32_t)len)) {
		pkt->drop_reason = MARK_DONE; /* not a drop: never offered */
		mqtx_pkt_free(pkt);
		w->r->skipped++;
		return 0;
	}
	mqtx__cooked_to_eth(dlt, data, h->caplen, &plain, pkt->data, (size_t)len);
	mqtx__whatif_key(pkt->data, pkt->len, &k);
	f = mqtx__whatif_flow_of(w->cap, &k);
	pkt->user = t << FLOW_BITS | f;
	pkt->drop_reason = MARK_FRESH;
	w->r->total.packets++;
	w->r->total.bytes += pkt->len;
	w->r->flows[f].packets++;
	w->r->flows[f].bytes += pkt->len;
	mqtx_dev_xmit(w->dev, pkt);
	settle();
	sample(w);
	return 0;
}

static int stream(struct run *w, int fd, char *msg, size_t msglen)
{
	struct mqtx_replay_reader r;
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;
	uint64_t first = 0, t = 0, rec = 0;
	bool nano;
	int dlt, rc, err = 0;

	rc = mqtx__replay_reader(fd, &r, msg, msglen);
	if (rc)
		return rc;
	p = r.p;
	nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	dlt = pcap_datalink(p);
	while ((rc = pcap_next_ex(p, &h, &data)) == 1 && !err) {
		uint64_t ts = mqtx__replay_ts_ns(h, nano);

		if (!rec++)
			first = ts;
		/* A record stamped before the one ahead of it arrives with it: time never goes
		 * back. */
		if (ts > first && ts - first > t)
			t = ts - first;
		advance(w, w->start + t);
		err = offer(w, dlt, h, data, t);
	}
	if (err == -ENOMEM)
		snprintf(msg, msglen, "out of memory for the %llu frames queued at once",
			 (unsigned long long)(w->r->total.packets - w->r->total.sent -
					      w->r->total.dropped));
	else if (rc == PCAP_ERROR)
		snprintf(msg, msglen, "record %llu: %s", (unsigned long long)rec + 1,
			 pcap_geterr(p));
	mqtx__replay_close(&r);
	return err ?: rc == PCAP_ERROR ? -EINVAL : 0;
}

/* After the last frame: time goes on, timer by timer, until the device is empty. */
static int drain(struct run *w, char *msg, size_t msglen)
{
	for (settle(); !mqtx_dev_all_tx_empty(w->dev); settle()) {
		uint64_t next = mqtx_clock_next_timer(w->clk);

		if (next == UINT64_MAX) {
			snprintf(msg, msglen,
				 "the device keeps %llu frames and nothing will send them",
				 (unsigned long long)(w->r->total.packets - w->r->total.sent -
						      w->r->total.dropped));
			return -EINVAL;
		}
		advance(w, next);
		sample(w);
	}
	return 0;
}

/* Give the sim device a receiving peer (or take it away, @peer NULL): its model changes only
 * while it is down, and its qdiscs stay while it is. */
static int set_peer(struct mqtx_dev *dev, struct mqtx_dev *peer)
{
	struct mqtx_sim_cfg c;
	bool up = mqtx_dev_is_up(dev);
	int rc;

	if (up)
		mqtx_dev_close(dev);
	rc = mqtx_sim_get_cfg(dev, &c);
	if (!rc) {
		c.peer = peer;
		rc = mqtx_sim_configure(dev, &c);
	}
	if (!rc && peer)
		rc = mqtx_dev_open(dev);
	return rc;
}

static int result_new(struct run *w, bool plot)
{
	struct mqtx_whatif_result *r = mqtx__zalloc(sizeof(*r));

	if (!r)
		return -ENOMEM;
	w->r = r;
	r->nq = mqtx_dev_num_txq(w->dev);
	r->nflows = w->cap->nflows;
	r->queues = mqtx__zalloc(r->nq * sizeof(*r->queues));
	r->flows = mqtx__zalloc((r->nflows + 1) * sizeof(*r->flows));
	if (plot) {
		r->backlog = mqtx__zalloc((size_t)r->nq * MQTX_WHATIF_SAMPLES * sizeof(uint64_t));
		r->sample_ns = w->cap->span_ns / (MQTX_WHATIF_SAMPLES / 2) + 1;
		if (r->sample_ns < 1000)
			r->sample_ns = 1000;
	}
	if (!r->queues || !r->flows || (plot && !r->backlog))
		return -ENOMEM;
	return 0;
}

static int check_dev(struct mqtx_dev *dev, char *msg, size_t msglen)
{
	struct mqtx_sim_cfg c;

	if (mqtx_sim_get_cfg(dev, &c)) {
		snprintf(msg, msglen, "%s is not a sim device: the delay is taken on a sim wire",
			 mqtx_dev_name(dev));
		return -EINVAL;
	}
	if (!mqtx_clock_is_virtual(mqtx_dev_clock(dev))) {
		snprintf(msg, msglen, "%s does not run on a virtual clock", mqtx_dev_name(dev));
		return -EINVAL;
	}
	return 0;
}

/* Every packet is back (the device is down and empty): the pools and the peer go. */
static void run_end(struct run *w)
{
	if (w->peer) {
		set_peer(w->dev, NULL);
		mqtx_dev_destroy(w->peer);
	}
	for (unsigned c = 0; c < 2; c++)
		for (unsigned i = 0; i < w->cls[c].npools; i++)
			mqtx_pool_destroy(w->cls[c].pools[i]);
}

static int run_body(struct run *w, int fd, char *msg, size_t msglen)
{
	struct mqtx_dev_cfg pc = {
		.name = "whatif-peer", .ops = &mqtx_null_ops, .num_txq = 1, .clock = w->clk
	};
	struct mqtx_dev_stats st;
	int rc;

	w->cls[1].data_room = mqtx_dev_mtu(w->dev) + ETHER_HDR_LEN + 4;
	w->cls[0].data_room = SMALL_ROOM < w->cls[1].data_room ? SMALL_ROOM : w->cls[1].data_room;
	rc = mqtx_dev_create(&pc, &w->peer);
	if (rc)
		return rc;
	mqtx_dev_set_rx_handler(w->peer, wire_done, w);
	rc = set_peer(w->dev, w->peer);
	if (rc) {
		snprintf(msg, msglen, "%s cannot be brought up: %s", mqtx_dev_name(w->dev),
			 strerror(-rc));
		return rc;
	}
	mqtx_dev_get_stats(w->dev, &st);
	memcpy(w->base, st.txq.drops, sizeof(w->base));
	w->start = mqtx_clock_now(w->clk);
	mqtx_bh_disable();
	rc = stream(w, fd, msg, msglen) ?: drain(w, msg, msglen);
	mqtx_bh_enable();
	w->r->virtual_ns = mqtx_clock_now(w->clk) - w->start;
	mqtx_dev_close(w->dev); /* what a failure left queued is dropped, so all is back */
	return rc;
}

int mqtx__whatif_run(struct mqtx_dev *dev, int fd, const struct mqtx_whatif_capture *cap,
		     bool backlog, struct mqtx_whatif_result **out, char *msg, size_t msglen)
{
	struct run w = { .dev = dev, .clk = mqtx_dev_clock(dev), .cap = cap, .plot = backlog };
	int rc;

	msg[0] = '\0';
	rc = check_dev(dev, msg, msglen);
	if (rc)
		return rc;
	rc = result_new(&w, backlog) ?: run_body(&w, fd, msg, msglen);
	run_end(&w);
	if (!rc && w.r->total.packets != w.r->total.sent + w.r->total.dropped) {
		snprintf(msg, msglen, "%llu frames neither sent nor dropped",
			 (unsigned long long)(w.r->total.packets - w.r->total.sent -
					      w.r->total.dropped));
		rc = -EINVAL;
	}
	if (rc) {
		if (rc == -ENOMEM && !msg[0])
			snprintf(msg, msglen, "out of memory");
		mqtx__whatif_result_free(w.r);
		return rc;
	}
	*out = w.r;
	return 0;
}

void mqtx__whatif_result_free(struct mqtx_whatif_result *r)
{
	if (!r)
		return;
	mqtx__free(r->queues);
	mqtx__free(r->flows);
	mqtx__free(r->backlog);
	mqtx__free(r);
}
