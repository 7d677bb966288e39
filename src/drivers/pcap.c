// SPDX-License-Identifier: MIT
/* The pcap driver: frames go to a capture file (libpcap's pcap, or pcapng written here with
 * one interface per TX queue), optionally through a wire of a given rate. */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mqtx/pcap.h>

#include "kq.h"

#define PC_STOP_THRESH 64

struct pc_desc {
	uint64_t due;
	uint32_t len;
};

/* A queue's wire: frames written and not yet finished, in order. */
struct pc_wire {
	struct pc_desc *ring;
	uint32_t head, count;
	uint64_t free_at; /* when the wire finishes its last frame */
};

struct pc_priv {
	pthread_mutex_t lock; /* the file, the wires and the timer */
	char path[256];
	bool ng;
	uint32_t snaplen, ring, nq;
	uint64_t rate_bps;
	FILE *f;	     /* pcapng */
	pcap_t *dead;	     /* pcap */
	pcap_dumper_t *dump; /* pcap */
	struct mqtx_clock *clock;
	struct mqtx_timer timer;
	uint64_t next_at;
	struct pc_wire *w;
	struct kq *q;
};

static struct pc_priv *pc_priv(struct mqtx_dev *dev)
{
	return mqtx_dev_priv(dev);
}

static bool is_pc(struct mqtx_dev *dev)
{
	return dev && mqtx_dev_ops(dev) == &mqtx_pcap_ops;
}

/* ---- pcapng (libpcap 1.10 has no writer) ---- */

static void ng_put(struct pc_priv *p, const void *d, size_t n)
{
	fwrite(d, 1, n, p->f);
}

static void ng_u32(struct pc_priv *p, uint32_t v)
{
	ng_put(p, &v, 4);
}

/* An option: code, length, value padded to 32 bits. */
static void ng_opt(struct pc_priv *p, uint16_t code, const void *v, uint16_t len)
{
	static const uint8_t pad[4];
	uint16_t h[2] = { code, len };

	ng_put(p, h, 4);
	ng_put(p, v, len);
	ng_put(p, pad, (4 - len % 4) % 4);
}

/* Section header, then one interface description per TX queue named "NAME:txN" with
 * nanosecond timestamps (if_tsresol 9). */
static void ng_header(struct pc_priv *p, const char *dev_name)
{
	static const uint8_t tsresol = 9;
	const uint32_t shb[] = {
		0x0a0d0d0a, 28, 0x1a2b3c4d, 0x00000001, 0xffffffff, 0xffffffff, 28
	};

	ng_put(p, shb, sizeof(shb));
	for (uint32_t i = 0; i < p->nq; i++) {
		char name[64];
		uint16_t nlen = (uint16_t)snprintf(name, sizeof(name), "%s:tx%u", dev_name, i);
		uint32_t len = 20 + 4 + (nlen + 3u) / 4 * 4 + 8 + 4;
		uint16_t lt[2] = { 1 /* LINKTYPE_ETHERNET */, 0 };

		ng_u32(p, 1);
		ng_u32(p, len);
		ng_put(p, lt, 4);
		ng_u32(p, p->snaplen);
		ng_opt(p, 2 /* if_name */, name, nlen);
		ng_opt(p, 9 /* if_tsresol */, &tsresol, 1);
		ng_u32(p, 0); /* opt_endofopt */
		ng_u32(p, len);
	}
}

/* Lock held. One frame of queue @q at @ts ns. */
static void pc_record(struct pc_priv *p, uint32_t q, uint64_t ts, const uint8_t *d, uint32_t len)
{
	uint32_t cap = len < p->snaplen ? len : p->snaplen;

	if (p->ng) {
		static const uint8_t pad[4];
		uint32_t blen = 32 + (cap + 3u) / 4 * 4;
		uint32_t epb[7] = { 6, blen, q, (uint32_t)(ts >> 32), (uint32_t)ts, cap, len };

		ng_put(p, epb, sizeof(epb));
		ng_put(p, d, cap);
		ng_put(p, pad, (4 - cap % 4) % 4);
		ng_u32(p, blen);
	} else {
		struct pcap_pkthdr h = { .caplen = cap, .len = len };

		/* A nanosecond dumper reads tv_usec as nanoseconds. */
		h.ts.tv_sec = (time_t)(ts / MQTX_NSEC_PER_SEC);
		h.ts.tv_usec = (suseconds_t)(ts % MQTX_NSEC_PER_SEC);
		pcap_dump((u_char *)p->dump, &h, d);
	}
}

/* Lock held. Push the burst to the file in whole records; 0 or an errno. */
static int pc_flush(struct pc_priv *p)
{
	int rc = p->ng ? fflush(p->f) : pcap_dump_flush(p->dump);

	return rc ? (errno ? errno : EIO) : 0;
}

/* ---- the wire ---- */

static uint64_t pc_wire_ns(const struct pc_priv *p, uint32_t len)
{
	unsigned __int128 bits = ((unsigned __int128)len + MQTX_PCAP_WIRE_OVERHEAD) * 8;

	return (uint64_t)((bits * MQTX_NSEC_PER_SEC + p->rate_bps - 1) / p->rate_bps);
}

/* Lock held. Have the timer fire at @due if that is earlier than what is armed. */
static void pc_arm(struct pc_priv *p, uint64_t due)
{
	if (due < p->next_at) {
		p->next_at = due;
		mqtx_timer_arm(&p->timer, due);
	}
}

/* The wire finished frames: complete them, wake the queues that have room again. A timer
 * callback is a section: woken queues run at its end. */
static void pc_timer_fn(struct mqtx_timer *t, void *arg)
{
	struct mqtx_dev *dev = arg;
	struct pc_priv *p = pc_priv(dev);
	uint64_t now = mqtx_clock_now(p->clock), next = UINT64_MAX;

	(void)t;
	pthread_mutex_lock(&p->lock);
	p->next_at = UINT64_MAX;
	for (uint32_t i = 0; i < p->nq; i++) {
		struct pc_wire *w = &p->w[i];
		uint32_t pkts = 0, bytes = 0;

		while (w->count && w->ring[w->head].due <= now) {
			bytes += w->ring[w->head].len;
			pkts++;
			w->head = (w->head + 1) % p->ring;
			w->count--;
		}
		if (w->count && w->ring[w->head].due < next)
			next = w->ring[w->head].due;
		if (!pkts)
			continue;
		atomic_fetch_add_explicit(&p->q[i].completed, pkts, memory_order_relaxed);
		mqtx_txq_completed(mqtx_dev_txq(dev, i), pkts, bytes);
		if (p->ring - w->count >= p->ring / 4)
			kq_wake(&p->q[i], mqtx_dev_txq(dev, i));
	}
	if (next != UINT64_MAX)
		pc_arm(p, next);
	pthread_mutex_unlock(&p->lock);
}

/* ---- data path ---- */

static unsigned pc_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			      unsigned n, bool more)
{
	struct pc_priv *p = pc_priv(dev);
	uint32_t i = mqtx_txq_index(txq);
	struct pc_wire *w = &p->w[i];
	struct kq *q = &p->q[i];
	uint64_t now = mqtx_clock_now(p->clock), bytes = 0;
	unsigned k;
	int err;

	(void)more;
	pthread_mutex_lock(&p->lock);
	for (k = 0; k < n; k++) {
		struct mqtx_pkt *pkt = pkts[k];
		uint64_t ts = now;

		if (p->rate_bps) {
			struct pc_desc *d;

			if (w->count == p->ring)
				break; /* requeued: cannot happen while stop_thresh >= the burst */
			ts = now > w->free_at ? now : w->free_at;
			w->free_at = ts + pc_wire_ns(p, pkt->len);
			d = &w->ring[(w->head + w->count++) % p->ring];
			d->due = w->free_at;
			d->len = pkt->len;
			mqtx_txq_sent(txq, pkt->len, k + 1 < n);
			pc_arm(p, w->ring[w->head].due);
		}
		pc_record(p, i, ts, pkt->data, pkt->len);
		bytes += pkt->len;
		mqtx_pkt_free(pkt);
	}
	err = pc_flush(p);
	if (!p->rate_bps)
		atomic_fetch_add_explicit(&q->completed, k, memory_order_relaxed);
	else if (p->ring - w->count < PC_STOP_THRESH && !atomic_exchange(&q->stopped, true)) {
		atomic_fetch_add_explicit(&q->stops, 1, memory_order_relaxed);
		mqtx_txq_stop(txq);
	}
	pthread_mutex_unlock(&p->lock);
	atomic_fetch_add_explicit(&q->calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&q->packets, k, memory_order_relaxed);
	atomic_fetch_add_explicit(&q->bytes, bytes, memory_order_relaxed);
	if (err) {
		/* The file system refused (disk full): the frames are counted as written (the
		 * stack gave them away) and the error is counted and logged once. */
		atomic_fetch_add_explicit(&q->errors, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&q->err[mqtx_kerr_of(err)], 1, memory_order_relaxed);
		atomic_store(&q->last_errno, err);
		if (!atomic_fetch_or(&q->logged, 1))
			mqtx_log(MQTX_LOG_ERR, "%s: %s: write failed: %s", mqtx_dev_name(dev),
				 p->path, strerror(err));
	}
	return k;
}

static uint32_t pc_inflight(struct mqtx_dev *dev, struct mqtx_txq *txq)
{
	struct pc_priv *p = pc_priv(dev);
	uint32_t n;

	pthread_mutex_lock(&p->lock);
	n = p->w[mqtx_txq_index(txq)].count;
	pthread_mutex_unlock(&p->lock);
	return n;
}

/* ---- control path ---- */

static int pc_open(struct mqtx_dev *dev)
{
	struct pc_priv *p = pc_priv(dev);

	for (uint32_t i = 0; i < p->nq; i++)
		p->w[i].free_at = 0;
	return 0;
}

/* Down: the wire stops; frames still on it were written and are counted as flushed. */
static void pc_stop(struct mqtx_dev *dev)
{
	struct pc_priv *p = pc_priv(dev);

	mqtx_timer_cancel(&p->timer);
	pthread_mutex_lock(&p->lock);
	p->next_at = UINT64_MAX;
	for (uint32_t i = 0; i < p->nq; i++) {
		atomic_fetch_add(&p->q[i].flushed, p->w[i].count);
		p->w[i].head = p->w[i].count = 0;
		atomic_store(&p->q[i].stopped, false);
		mqtx_txq_bql_reset(mqtx_dev_txq(dev, i));
	}
	pc_flush(p);
	pthread_mutex_unlock(&p->lock);
}

static void pc_uninit(struct mqtx_dev *dev)
{
	struct pc_priv *p = pc_priv(dev);

	if (p->dump)
		pcap_dump_close(p->dump);
	if (p->dead)
		pcap_close(p->dead);
	if (p->f)
		fclose(p->f);
	if (p->w)
		mqtx_free(p->w[0].ring);
	mqtx_free(p->w);
	mqtx_free(p->q);
	pthread_mutex_destroy(&p->lock);
}

static void pc_get_xstats(struct mqtx_dev *dev, struct mqtx_txq *txq, mqtx_xstat_fn emit, void *arg)
{
	struct pc_priv *p = pc_priv(dev);
	struct mqtx_ktxq_stats st;

	if (txq) {
		kq_snapshot(&p->q[mqtx_txq_index(txq)], &st);
		emit("on_wire", pc_inflight(dev, txq), arg);
	} else {
		kq_sum(p->q, p->nq, &st);
		emit("rate_bps", p->rate_bps, arg);
	}
	kq_emit(&st, emit, arg);
}

static int pc_change(struct mqtx_dev *dev, const struct mqtx_dev_settings *set, char *msg,
		     size_t msglen)
{
	struct pc_priv *p = pc_priv(dev);

	if (set->mask & (MQTX_DEV_SET_RING | MQTX_DEV_SET_COALESCE)) {
		snprintf(msg, msglen, "%s: a pcap device has no %s to set (only rate)",
			 mqtx_dev_name(dev),
			 set->mask & MQTX_DEV_SET_RING ? "ring after creation" : "coalescing");
		return -EOPNOTSUPP;
	}
	if (set->mask & MQTX_DEV_SET_RATE) {
		if (mqtx_dev_is_up(dev) && !!set->rate_bps != !!p->rate_bps) {
			snprintf(msg, msglen, "%s: the wire cannot be added or removed while up",
				 mqtx_dev_name(dev));
			return -EBUSY;
		}
		pthread_mutex_lock(&p->lock);
		p->rate_bps = set->rate_bps; /* frames already on the wire keep their times */
		pthread_mutex_unlock(&p->lock);
	}
	return 0;
}

const struct mqtx_dev_ops mqtx_pcap_ops = {
	.kind = "pcap",
	.priv_size = sizeof(struct pc_priv),
	.uninit = pc_uninit,
	.open = pc_open,
	.stop = pc_stop,
	.xmit_burst = pc_xmit_burst,
	.inflight = pc_inflight,
	.get_xstats = pc_get_xstats,
	.change = pc_change,
};

/* The file and the wires. 0, or -errno with @msg set. */
static int pc_setup(struct mqtx_dev *dev, char *msg, size_t msglen)
{
	struct pc_priv *p = pc_priv(dev);

	p->w = mqtx_alloc(sizeof(*p->w) * p->nq, 0);
	p->q = mqtx_alloc(sizeof(*p->q) * p->nq, MQTX_CACHE_LINE);
	if (!p->w || !p->q)
		goto nomem;
	memset(p->w, 0, sizeof(*p->w) * p->nq);
	kq_init(p->q, p->nq);
	if (p->rate_bps) {
		struct pc_desc *r = mqtx_alloc(sizeof(*r) * p->ring * p->nq, 0);

		if (!r)
			goto nomem;
		for (uint32_t i = 0; i < p->nq; i++)
			p->w[i].ring = r + (size_t)i * p->ring;
	}
	if (p->ng) {
		p->f = fopen(p->path, "we");
		if (p->f)
			ng_header(p, mqtx_dev_name(dev));
	} else {
		p->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)p->snaplen,
							       PCAP_TSTAMP_PRECISION_NANO);
		if (!p->dead)
			goto nomem;
		p->dump = pcap_dump_open(p->dead, p->path);
	}
	if ((p->ng && !p->f) || (!p->ng && !p->dump)) {
		snprintf(msg, msglen, "%s: cannot create: %s", p->path, strerror(errno));
		return errno ? -errno : -EIO;
	}
	if (pc_flush(p)) {
		snprintf(msg, msglen, "%s: cannot write: %s", p->path, strerror(errno));
		unlink(p->path);
		return -EIO;
	}
	return 0;
nomem:
	snprintf(msg, msglen, "%s: out of memory", p->path);
	return -ENOMEM;
}

int mqtx_pcap_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_pcap_cfg *pc,
			 struct mqtx_dev **out)
{
	struct mqtx_dev_cfg c = *base;
	uint32_t ring = pc && pc->ring ? pc->ring : MQTX_PCAP_RING_DEFAULT;
	struct mqtx_dev *dev;
	struct pc_priv *p;
	char msg[320];
	size_t len;
	int err;

	if (!pc || !pc->file || !*pc->file || strlen(pc->file) >= sizeof(p->path)) {
		mqtx_log(MQTX_LOG_ERR, "pcap: %s: needs a file (a path of 1..255 characters)",
			 base->name ? base->name : "");
		return -EINVAL;
	}
	if (ring < PC_STOP_THRESH || ring > 65536 || pc->format > MQTX_PCAP_FORMAT_PCAPNG) {
		mqtx_log(MQTX_LOG_ERR, "pcap: %s: %s", pc->file,
			 ring < PC_STOP_THRESH || ring > 65536 ? "ring out of range 64..65536"
							       : "unknown format");
		return -EINVAL;
	}
	c.ops = &mqtx_pcap_ops;
	c.priv_size = 0;
	err = mqtx_dev_create(&c, &dev);
	if (err)
		return err;
	p = pc_priv(dev);
	pthread_mutex_init(&p->lock, NULL);
	snprintf(p->path, sizeof(p->path), "%s", pc->file);
	len = strlen(p->path);
	p->ng = pc->format == MQTX_PCAP_FORMAT_PCAPNG ||
		(pc->format == MQTX_PCAP_FORMAT_AUTO && len > 7 &&
		 !strcmp(p->path + len - 7, ".pcapng"));
	p->snaplen = pc->snaplen ? pc->snaplen : 65535;
	p->ring = ring;
	p->rate_bps = pc->rate_bps;
	p->nq = mqtx_dev_num_txq(dev);
	p->clock = mqtx_dev_clock(dev);
	p->next_at = UINT64_MAX;
	mqtx_timer_init(&p->timer, p->clock, pc_timer_fn, dev);
	err = pc_setup(dev, msg, sizeof(msg));
	if (err) {
		mqtx_log(MQTX_LOG_ERR, "pcap: %s", msg);
		mqtx_dev_destroy(dev);
		return err;
	}
	*out = dev;
	return 0;
}

int mqtx_pcap_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st)
{
	struct pc_priv *p;

	if (!is_pc(dev) || i >= (int)mqtx_dev_num_txq(dev))
		return -EINVAL;
	p = pc_priv(dev);
	if (i < 0)
		kq_sum(p->q, p->nq, st);
	else
		kq_snapshot(&p->q[i], st);
	return 0;
}
