// SPDX-License-Identifier: MIT
/* The pcap driver: frames go to a capture file (libpcap's pcap, or pcapng with one interface
 * per TX queue), optionally through a wire of a given rate. A frame is written as a whole
 * record or dropped with the reason the file system gave. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <mqtx/pcap.h>

#include "kq.h"
#include "pcap_file.h"

#define PC_STOP_THRESH 64
/* On the real clock, frames the wire finished are completed by the next burst, and the wire's
 * timer (a thread's wake-up, microseconds in a VM: more than a frame's time at 100 kpps) comes
 * this long after the frame at the head finishes, to complete the last ones of a pause; a
 * stopped queue still gets its round the instant room appears. A virtual clock completes every
 * frame at its instant. */
#define PC_LAZY_NS  1000000
#define PC_PATH_MAX 256
#define PC_CHUNK    128 /* records per pwritev(): 3 iovecs each, well within IOV_MAX */

#define PC_PCAP_MAGIC_NS   0xa1b23c4du /* libpcap's magic for nanosecond timestamps */
#define PC_LINKTYPE_EN10MB 1u

struct pc_desc {
	uint64_t due;
	uint32_t len;
};

/* A queue's wire: frames written and not yet finished, in order. */
struct pc_wire {
	struct pc_desc *ring;
	uint32_t head, count;
	uint64_t free_at; /* when the wire finishes its last frame */
	uint64_t last_ts; /* the stamp of the last frame written (the device's clock) */
};

/* The bytes of one record around its frame: pcap's record header, or pcapng's Enhanced Packet
 * Block head, then (pcapng) the frame's padding and the block's length again. */
struct pc_rec {
	uint32_t head[7];
	uint8_t tail[8];
	uint32_t head_len, cap, tail_len; /* @cap: the frame's bytes recorded */
	uint64_t due;			  /* with a wire: when it finishes this frame */
};

struct pc_priv {
	pthread_mutex_t lock;  /* the wires and the timer */
	pthread_mutex_t wlock; /* the file, @off and the scratch records; taken before @lock */
	char path[PC_PATH_MAX];
	bool ng;
	uint32_t snaplen, ring, nq;
	uint64_t rate_bps;
	uint64_t wall_off; /* CLOCK_REALTIME less the device's clock when it came up */
	int fd;
	off_t off;	      /* where the last whole record ends: the next one goes there */
	bool cut, cut_logged; /* a partial record after @off is still to be cut off */
	struct pc_rec *rec;   /* PC_CHUNK records being written */
	struct iovec *iov;    /* 3 * PC_CHUNK */
	/* Frames not written since the device came up, by reason, and whether the first
	 * failure was logged (the rest are counted, and logged as a sum when it goes down). */
	atomic_ullong nospace, write_err;
	atomic_bool fail_logged;
	struct mqtx_clock *clock;
	struct mqtx_timer timer;
	uint64_t next_at;
	uint64_t lazy_ns; /* PC_LAZY_NS on the real clock, 0 on a virtual one */
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

/* ---- the file ---- */

/* What a write errno means for the frame: the file system is full, or it failed. */
static enum mqtx_drop_reason pc_reason(int err)
{
	return err == ENOSPC || err == EDQUOT ? MQTX_DROP_NOSPACE : MQTX_DROP_WRITE;
}

/* All of @len bytes at @off; 0 or an errno. */
static int pc_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *b = buf;

	while (len) {
		ssize_t n = pwrite(fd, b, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : ENOSPC;
		b += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

static size_t put(uint8_t *b, size_t at, const void *d, size_t n)
{
	memcpy(b + at, d, n);
	return at + n;
}

/* A pcapng option: code, length, value padded to 32 bits. */
static size_t ng_opt(uint8_t *b, size_t at, uint16_t code, const void *v, uint16_t len)
{
	static const uint8_t pad[4];
	uint16_t h[2] = { code, len };

	at = put(b, at, h, 4);
	at = put(b, at, v, len);
	return put(b, at, pad, (4 - len % 4) % 4);
}

/* The file's header into @b (room for pc_header_room()): pcap's, or pcapng's section header
 * and one interface description per TX queue named "NAME:txN" with nanosecond timestamps
 * (if_tsresol 9). Returns its length. */
static size_t pc_header(const struct pc_priv *p, const char *dev_name, uint8_t *b)
{
	static const uint8_t tsresol = 9;
	const uint32_t shb[] = {
		0x0a0d0d0a, 28, 0x1a2b3c4d, 0x00000001, 0xffffffff, 0xffffffff, 28
	};
	const uint32_t magic = PC_PCAP_MAGIC_NS, hdr[] = { 0, 0, p->snaplen, PC_LINKTYPE_EN10MB };
	const uint16_t version[2] = { 2, 4 };
	size_t at;

	if (!p->ng) {
		at = put(b, 0, &magic, 4);
		at = put(b, at, version, 4);
		return put(b, at, hdr, sizeof(hdr)); /* thiszone, sigfigs, snaplen, link type */
	}
	at = put(b, 0, shb, sizeof(shb));
	for (uint32_t i = 0; i < p->nq; i++) {
		char name[64];
		uint16_t nlen = (uint16_t)snprintf(name, sizeof(name), "%s:tx%u", dev_name, i);
		uint32_t len = 20 + 4 + (nlen + 3u) / 4 * 4 + 8 + 4, zero = 0;
		uint32_t idb[4] = { 1, len, PC_LINKTYPE_EN10MB, p->snaplen };

		at = put(b, at, idb, sizeof(idb));
		at = ng_opt(b, at, 2 /* if_name */, name, nlen);
		at = ng_opt(b, at, 9 /* if_tsresol */, &tsresol, 1);
		at = put(b, at, &zero, 4); /* opt_endofopt */
		at = put(b, at, &len, 4);
	}
	return at;
}

static size_t pc_header_room(const struct pc_priv *p)
{
	return 28 + (size_t)p->nq * (20 + 4 + 64 + 8 + 4);
}

/* Record @r of frame @pkt of queue @q at @ts ns: its bytes around the frame. */
static void pc_rec_fill(const struct pc_priv *p, struct pc_rec *r, uint32_t q, uint64_t ts,
			const struct mqtx_pkt *pkt)
{
	uint32_t cap = pkt->len < p->snaplen ? pkt->len : p->snaplen;

	r->cap = cap;
	if (p->ng) {
		uint32_t pad = (4 - cap % 4) % 4, blen = 32 + cap + pad;
		uint32_t epb[7] = { 6, blen, q, (uint32_t)(ts >> 32), (uint32_t)ts, cap, pkt->len };

		memcpy(r->head, epb, sizeof(epb));
		r->head_len = sizeof(epb);
		memset(r->tail, 0, pad);
		memcpy(r->tail + pad, &blen, 4);
		r->tail_len = pad + 4;
	} else {
		/* The nanosecond format: seconds, then nanoseconds. */
		r->head[0] = (uint32_t)(ts / MQTX_NSEC_PER_SEC);
		r->head[1] = (uint32_t)(ts % MQTX_NSEC_PER_SEC);
		r->head[2] = cap;
		r->head[3] = pkt->len;
		r->head_len = 16;
		r->tail_len = 0;
	}
}

static size_t pc_rec_len(const struct pc_rec *r)
{
	return (size_t)r->head_len + r->cap + r->tail_len;
}

/*
 * wlock held. Write the records of @pkts (filled in p->rec) at the file's end, as one
 * pwritev(). Returns how many were written whole. When the file system refuses (*@err set to
 * its errno), what was written of the next record is cut off again, so that the file ends with
 * a whole record; were that to fail, it is tried again after each write (which starts at the
 * same place), and said once.
 */
static unsigned pc_write_chunk(struct pc_priv *p, struct mqtx_pkt **pkts, unsigned n, int *err)
{
	struct iovec *iov = p->iov;
	size_t total = 0, done = 0, whole = 0;
	unsigned niov = 0, k = 0;

	for (unsigned j = 0; j < n; j++) {
		struct pc_rec *r = &p->rec[j];

		iov[niov++] = (struct iovec){ r->head, r->head_len };
		iov[niov++] = (struct iovec){ pkts[j]->data, r->cap };
		if (r->tail_len)
			iov[niov++] = (struct iovec){ r->tail, r->tail_len };
		total += pc_rec_len(r);
	}
	for (unsigned first = 0; done < total;) {
		ssize_t w = pwritev(p->fd, iov + first, (int)(niov - first), p->off + (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			*err = w < 0 ? errno : ENOSPC;
			break;
		}
		done += (size_t)w;
		/* Skip what was written: whole iovecs, then part of one. */
		while (first < niov && (size_t)w >= iov[first].iov_len)
			w -= (ssize_t)iov[first++].iov_len;
		if (w) {
			iov[first].iov_base = (char *)iov[first].iov_base + w;
			iov[first].iov_len -= (size_t)w;
		}
	}
	for (; k < n && whole + pc_rec_len(&p->rec[k]) <= done; k++)
		whole += pc_rec_len(&p->rec[k]);
	p->off += (off_t)whole;
	p->cut |= done > whole;
	if (p->cut && ftruncate(p->fd, p->off) == 0)
		p->cut = false;
	if (p->cut && !p->cut_logged) {
		p->cut_logged = true;
		mqtx_log(MQTX_LOG_WARN, "%s: cannot cut a partial record off: %s", p->path,
			 strerror(errno));
	}
	return k;
}

/* The first frame the file system refused since the device came up is logged; the others are
 * counted, and their sum is logged when the device goes down (pc_stop()). */
static void pc_unwritten(struct mqtx_dev *dev, uint32_t q, unsigned n, int err)
{
	struct pc_priv *p = pc_priv(dev);

	atomic_fetch_add(pc_reason(err) == MQTX_DROP_NOSPACE ? &p->nospace : &p->write_err, n);
	if (atomic_exchange(&p->fail_logged, true))
		return;
	mqtx_log(MQTX_LOG_WARN,
		 "%s: %s: cannot write: %s; txq %u: frames that are not written whole are dropped "
		 "(%s) and counted",
		 mqtx_dev_name(dev), p->path, strerror(err), q,
		 mqtx_drop_reason_name(pc_reason(err)));
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

/* Lock held. Complete the frames of queue @i that the wire finished by @now; wake the queue when
 * room is back. Returns when the frame now at the head finishes (UINT64_MAX: none). */
static uint64_t pc_reap(struct mqtx_dev *dev, struct pc_priv *p, uint32_t i, uint64_t now)
{
	struct pc_wire *w = &p->w[i];
	uint32_t pkts = 0, bytes = 0;

	while (w->count && w->ring[w->head].due <= now) {
		bytes += w->ring[w->head].len;
		pkts++;
		w->head = (w->head + 1) % p->ring;
		w->count--;
	}
	if (pkts) {
		atomic_fetch_add_explicit(&p->q[i].completed, pkts, memory_order_relaxed);
		mqtx_txq_completed(mqtx_dev_txq(dev, i), pkts, bytes);
		if (p->ring - w->count >= p->ring / 4)
			mqtx__kq_wake(&p->q[i], mqtx_dev_txq(dev, i));
	}
	return w->count ? w->ring[w->head].due : UINT64_MAX;
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
		uint64_t due = pc_reap(dev, p, i, now);

		if (due != UINT64_MAX && mqtx_txq_stopped(mqtx_dev_txq(dev, i)))
			next = due < next ? due : next;
		else if (due != UINT64_MAX && due + p->lazy_ns < next)
			next = due + p->lazy_ns;
	}
	if (next != UINT64_MAX)
		pc_arm(p, next);
	pthread_mutex_unlock(&p->lock);
}

/* ---- data path ---- */

/*
 * wlock held. Records for @n frames of queue @q of wire @w from @now: each frame's timestamp is
 * when the wire starts it, or, without a wire, the clock's reading as it is written, each frame
 * its own and later than the one before (as a capture stamps each frame it sees). The file
 * holds wall-clock time: the stamp plus @p->wall_off.
 */
static void pc_fill(struct pc_priv *p, uint32_t q, struct pc_wire *w, struct mqtx_pkt **pkts,
		    unsigned n, uint64_t now)
{
	uint64_t free_at = w->free_at;

	for (unsigned j = 0; j < n; j++) {
		uint64_t ts = j ? mqtx_clock_now(p->clock) : now;

		if (p->rate_bps) {
			ts = now > free_at ? now : free_at;
			free_at = ts + pc_wire_ns(p, pkts[j]->len);
			p->rec[j].due = free_at;
		} else if (ts <= w->last_ts) {
			ts = w->last_ts + 1;
		}
		w->last_ts = ts;
		pc_rec_fill(p, &p->rec[j], q, ts + p->wall_off, pkts[j]);
	}
}

/* Lock held. Put the @n frames just written on the wire of queue @txq (BQL counts them). */
static void pc_wire_put(struct pc_priv *p, struct mqtx_txq *txq, struct pc_wire *w,
			struct mqtx_pkt **pkts, unsigned n)
{
	for (unsigned j = 0; j < n; j++) {
		struct pc_desc *d = &w->ring[(w->head + w->count++) % p->ring];

		d->due = p->rec[j].due;
		d->len = pkts[j]->len;
		w->free_at = d->due;
		mqtx_txq_sent(txq, pkts[j]->len, j + 1 < n);
	}
	if (n)
		pc_arm(p, w->ring[w->head].due + p->lazy_ns);
}

static unsigned pc_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			      unsigned n, bool more)
{
	struct pc_priv *p = pc_priv(dev);
	uint32_t i = mqtx_txq_index(txq);
	struct pc_wire *w = &p->w[i];
	struct kq *q = &p->q[i];
	uint64_t now = mqtx_clock_now(p->clock), bytes = 0, rate;
	unsigned k = 0, written = 0;
	int err = 0;

	(void)more;
	pthread_mutex_lock(&p->wlock);
	rate = p->rate_bps; /* dev set changes it under both locks */
	if (rate) {
		/* Only the wire's timer frees room meanwhile: this much fits at least. */
		pthread_mutex_lock(&p->lock);
		if (p->lazy_ns)
			pc_reap(dev, p, i, now);
		if (n > p->ring - w->count)
			n = p->ring - w->count; /* requeued: not while stop_thresh >= the burst */
		pthread_mutex_unlock(&p->lock);
	}
	while (k < n && !err) {
		unsigned c = n - k < PC_CHUNK ? n - k : PC_CHUNK, ok;

		pc_fill(p, i, w, pkts + k, c, now);
		ok = pc_write_chunk(p, pkts + k, c, &err);
		if (rate) {
			pthread_mutex_lock(&p->lock);
			pc_wire_put(p, txq, w, pkts + k, ok);
			pthread_mutex_unlock(&p->lock);
		}
		for (unsigned j = k; j < k + ok; j++) {
			bytes += pkts[j]->len;
			mqtx_pkt_free(pkts[j]);
		}
		written += ok;
		k += c;
	}
	pthread_mutex_unlock(&p->wlock);
	/* What the file did not take whole is dropped, counted by why (the stack gave it away). */
	for (unsigned j = written; j < n; j++)
		mqtx_txq_drop_taken(txq, pkts[j], pc_reason(err));
	if (!rate) {
		atomic_fetch_add_explicit(&q->completed, written, memory_order_relaxed);
	} else {
		pthread_mutex_lock(&p->lock);
		if (p->ring - w->count < PC_STOP_THRESH && !atomic_exchange(&q->stopped, true)) {
			atomic_fetch_add_explicit(&q->stops, 1, memory_order_relaxed);
			mqtx_txq_stop(txq);
		}
		/* Stopped (no room, or BQL's limit): the round comes when the head finishes. */
		if (w->count && mqtx_txq_stopped(txq))
			pc_arm(p, w->ring[w->head].due);
		pthread_mutex_unlock(&p->lock);
	}
	atomic_fetch_add_explicit(&q->calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&q->packets, written, memory_order_relaxed);
	atomic_fetch_add_explicit(&q->bytes, bytes, memory_order_relaxed);
	if (written < n) {
		atomic_fetch_add_explicit(&q->errors, n - written, memory_order_relaxed);
		atomic_fetch_add_explicit(&q->err[mqtx_kerr_of(err)], n - written,
					  memory_order_relaxed);
		atomic_store(&q->last_errno, err);
		pc_unwritten(dev, i, n - written, err);
	}
	return n;
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

/* Up: the wires are free, and the stamps are wall-clock time from now on: CLOCK_REALTIME when
 * the device comes up plus the monotonic time since, so that a capture opens at its date and
 * merges with other captures, while its spacing stays the wire's (a step of the wall clock
 * meanwhile moves nothing). A virtual clock's stamps are its own time. */
static int pc_open(struct mqtx_dev *dev)
{
	struct pc_priv *p = pc_priv(dev);
	struct timespec rt;

	p->wall_off = 0;
	if (!mqtx_clock_is_virtual(p->clock)) {
		uint64_t mono = mqtx_clock_now(p->clock);

		clock_gettime(CLOCK_REALTIME, &rt);
		p->wall_off = (uint64_t)rt.tv_sec * MQTX_NSEC_PER_SEC + (uint64_t)rt.tv_nsec - mono;
	}
	for (uint32_t i = 0; i < p->nq; i++)
		p->w[i].free_at = p->w[i].last_ts = 0;
	return 0;
}

/* Down: the wire stops; frames still on it were written and are counted as flushed. What the
 * file system refused while the device was up is logged as a sum. */
static void pc_stop(struct mqtx_dev *dev)
{
	struct pc_priv *p = pc_priv(dev);
	unsigned long long nospace, write;
	char why[64];

	mqtx_timer_cancel(&p->timer);
	pthread_mutex_lock(&p->lock);
	p->next_at = UINT64_MAX;
	for (uint32_t i = 0; i < p->nq; i++) {
		atomic_fetch_add(&p->q[i].flushed, p->w[i].count);
		p->w[i].head = p->w[i].count = 0;
		atomic_store(&p->q[i].stopped, false);
		mqtx_txq_bql_reset(mqtx_dev_txq(dev, i));
	}
	pthread_mutex_unlock(&p->lock);
	nospace = atomic_exchange(&p->nospace, 0);
	write = atomic_exchange(&p->write_err, 0);
	if (!atomic_exchange(&p->fail_logged, false))
		return;
	if (nospace && write)
		snprintf(why, sizeof(why), "nospace %llu, write %llu", nospace, write);
	else
		snprintf(why, sizeof(why), "%s %llu", nospace ? "nospace" : "write",
			 nospace ? nospace : write);
	mqtx_log(MQTX_LOG_WARN, "%s: %s: %llu frames were not written (%s)", mqtx_dev_name(dev),
		 p->path, nospace + write, why);
}

static void pc_uninit(struct mqtx_dev *dev)
{
	struct pc_priv *p = pc_priv(dev);

	if (p->fd >= 0)
		close(p->fd);
	if (p->w)
		mqtx_free(p->w[0].ring);
	mqtx_free(p->w);
	mqtx_free(p->q);
	mqtx_free(p->rec);
	mqtx_free(p->iov);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->wlock);
}

static void pc_ktxq_stats(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_ktxq_stats *st)
{
	mqtx__kq_snapshot(&pc_priv(dev)->q[mqtx_txq_index(txq)], st);
}

static void pc_get_xstats(struct mqtx_dev *dev, struct mqtx_txq *txq, mqtx_xstat_fn emit, void *arg)
{
	struct pc_priv *p = pc_priv(dev);
	struct mqtx_ktxq_stats st;

	if (txq) {
		mqtx__kq_snapshot(&p->q[mqtx_txq_index(txq)], &st);
		emit("on_wire", pc_inflight(dev, txq), arg);
	} else {
		mqtx_dev_ktxq_stats(dev, -1, &st);
		emit("rate_bps", p->rate_bps, arg);
	}
	mqtx__kq_emit(&st, emit, arg);
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
		pthread_mutex_lock(&p->wlock); /* a burst reads the rate while it writes */
		pthread_mutex_lock(&p->lock);
		p->rate_bps = set->rate_bps; /* frames already on the wire keep their times */
		pthread_mutex_unlock(&p->lock);
		pthread_mutex_unlock(&p->wlock);
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
	.ktxq_stats = pc_ktxq_stats,
};

/* The wires and the scratch records. 0, or -ENOMEM (pc_uninit() frees what was had). */
static int pc_alloc(struct pc_priv *p)
{
	p->w = mqtx_alloc(sizeof(*p->w) * p->nq, 0);
	if (p->w) /* before anything can fail: pc_uninit() frees the wires' ring */
		memset(p->w, 0, sizeof(*p->w) * p->nq);
	p->q = mqtx_alloc(sizeof(*p->q) * p->nq, MQTX_CACHE_LINE);
	p->rec = mqtx_alloc(sizeof(*p->rec) * PC_CHUNK, 0);
	p->iov = mqtx_alloc(sizeof(*p->iov) * 3 * PC_CHUNK, 0);
	if (!p->w || !p->q || !p->rec || !p->iov)
		return -ENOMEM;
	mqtx__kq_init(p->q, p->nq);
	if (p->rate_bps) {
		struct pc_desc *r = mqtx_alloc(sizeof(*r) * p->ring * p->nq, 0);

		if (!r)
			return -ENOMEM;
		for (uint32_t i = 0; i < p->nq; i++)
			p->w[i].ring = r + (size_t)i * p->ring;
	}
	return 0;
}

/* The wires, and the header written to the file @fd (a duplicate of the caller's, emptied
 * first with @overwrite). 0, or -errno with @msg set. */
static int pc_setup(struct mqtx_dev *dev, int fd, bool overwrite, char *msg, size_t msglen)
{
	struct pc_priv *p = pc_priv(dev);
	uint8_t *hdr;
	size_t len;
	int err;

	err = mqtx__pcap_file_check(fd, p->path, overwrite, msg, msglen);
	if (err)
		return err;
	hdr = mqtx_alloc(pc_header_room(p), 0);
	if (pc_alloc(p) || !hdr) {
		mqtx_free(hdr);
		snprintf(msg, msglen, "%s: out of memory", p->path);
		return -ENOMEM;
	}
	p->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (p->fd < 0 || (overwrite && ftruncate(p->fd, 0))) {
		err = errno;
		mqtx_free(hdr);
		snprintf(msg, msglen, "%s: %s", p->path, strerror(err));
		return -err;
	}
	len = pc_header(p, mqtx_dev_name(dev), hdr);
	err = pc_pwrite_all(p->fd, hdr, len, 0);
	mqtx_free(hdr);
	if (err) {
		snprintf(msg, msglen, "%s: cannot write: %s", p->path, strerror(err));
		return -err;
	}
	p->off = (off_t)len;
	return 0;
}

/* A device on the file @fd (see mqtx_pcap_dev_create_fd()). */
static int pc_create(const struct mqtx_dev_cfg *base, const struct mqtx_pcap_cfg *pc, int fd,
		     struct mqtx_dev **out)
{
	struct mqtx_dev_cfg c = *base;
	uint32_t ring = pc->ring ? pc->ring : MQTX_PCAP_RING_DEFAULT;
	struct mqtx_dev *dev;
	struct pc_priv *p;
	char msg[320];
	size_t len;
	int err;

	c.ops = &mqtx_pcap_ops;
	c.priv_size = 0;
	err = mqtx_dev_create(&c, &dev);
	if (err)
		return err;
	p = pc_priv(dev);
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->wlock, NULL);
	p->fd = -1;
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
	p->lazy_ns = mqtx_clock_is_virtual(p->clock) ? 0 : PC_LAZY_NS;
	mqtx_timer_init(&p->timer, p->clock, pc_timer_fn, dev);
	err = pc_setup(dev, fd, pc->overwrite, msg, sizeof(msg));
	if (err) {
		mqtx_log(MQTX_LOG_ERR, "pcap: %s", msg);
		mqtx_dev_destroy(dev);
		return err;
	}
	*out = dev;
	return 0;
}

/* What can be checked before the file is touched; false after logging why. */
static bool pc_cfg_ok(const struct mqtx_dev_cfg *base, const struct mqtx_pcap_cfg *pc)
{
	uint32_t ring;

	if (!pc || !pc->file || !*pc->file || strlen(pc->file) >= PC_PATH_MAX) {
		mqtx_log(MQTX_LOG_ERR, "pcap: %s: needs a file (a path of 1..%d characters)",
			 base->name ? base->name : "", PC_PATH_MAX - 1);
		return false;
	}
	ring = pc->ring ? pc->ring : MQTX_PCAP_RING_DEFAULT;
	if (ring < PC_STOP_THRESH || ring > 65536 || pc->format > MQTX_PCAP_FORMAT_PCAPNG) {
		mqtx_log(MQTX_LOG_ERR, "pcap: %s: %s", pc->file,
			 ring < PC_STOP_THRESH || ring > 65536 ? "ring out of range 64..65536"
							       : "unknown format");
		return false;
	}
	return true;
}

int mqtx_pcap_dev_create_fd(const struct mqtx_dev_cfg *base, const struct mqtx_pcap_cfg *pc, int fd,
			    struct mqtx_dev **out)
{
	if (!pc_cfg_ok(base, pc))
		return -EINVAL;
	return pc_create(base, pc, fd, out);
}

int mqtx_pcap_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_pcap_cfg *pc,
			 struct mqtx_dev **out)
{
	struct mqtx_pcap_cfg opened;
	bool created;
	char msg[320];
	int fd, err;

	if (!pc_cfg_ok(base, pc))
		return -EINVAL;
	fd = mqtx_pcap_open(pc->file, pc->overwrite, &created, msg, sizeof(msg));
	if (fd < 0) {
		mqtx_log(MQTX_LOG_ERR, "pcap: %s", msg);
		return fd;
	}
	opened = *pc;
	opened.overwrite = false; /* the open emptied it */
	err = pc_create(base, &opened, fd, out);
	/* A file that was there stays, whatever came of it; one this call made goes. */
	if (err && created)
		mqtx__pcap_file_remove(pc->file, fd);
	close(fd);
	return err;
}

/* Kept for callers of the first releases: mqtx_dev_ktxq_stats() serves every driver. */
int mqtx_pcap_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st)
{
	return is_pc(dev) ? mqtx_dev_ktxq_stats(dev, i, st) : -EINVAL;
}
