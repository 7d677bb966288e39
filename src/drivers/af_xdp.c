// SPDX-License-Identifier: MIT
/* The af_xdp driver: TX queue i is an AF_XDP socket (libxdp) on interface queue Q0 + i; the
 * sockets share one UMEM, the memory of a packet pool, whose packets go out where they are. */
#include <errno.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <xdp/xsk.h>

#include <mqtx/af_xdp.h>

#include "kq.h"

#define XQ_STOP_THRESH 64 /* the stack's largest burst always fits a running queue */
#define XQ_KICKS       64 /* send calls per kick at most: each sends up to 32 frames */
#define XQ_REFILL      32 /* copy frames a queue takes from the pool at a time */
#define XQ_FILL_RING   64 /* a socket on another queue of a shared UMEM must have one; unused */

/* In pkt->cb[0] while the driver holds a packet: one of its queue's copy frames, which goes
 * back to that queue instead of to the pool. */
#define XF_SPARE 0x01

/* One queue: its socket and rings, the packets the kernel holds, the frames it copies other
 * pools' packets into. The lock serialises the sender and the poller. */
struct xq {
	pthread_mutex_t lock;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp;
	struct mqtx_pkt **fly; /* on the TX ring or in the kernel, oldest first (ring entries) */
	uint32_t fly_head, nfly;
	struct mqtx_pkt **spare; /* free copy frames */
	uint32_t nspare, owned;	 /* owned: copy frames taken from the pool, free or in flight */
	bool starved;		 /* stopped because the pool had no frame for a copy */
	int fd;
	atomic_ullong in_place, copied, copy_waits;
} __attribute__((aligned(MQTX_CACHE_LINE)));

struct xdp_priv {
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint32_t q0, frame, ring, wake_thresh;
	bool zc;
	bool torn; /* a stop closed the sockets and the UMEM (frames were stuck): open remakes them */
	uint32_t nq;
	struct mqtx_pkt_pool *pool; /* its memory is the UMEM; held by the device */
	struct mqtx_pool_frames area;
	struct xsk_umem *umem;
	struct kq *q;
	struct xq *x;
	struct kq_poller poller;
};

static struct xdp_priv *xdp_priv(struct mqtx_dev *dev)
{
	return mqtx_dev_priv(dev);
}

static bool is_xdp(struct mqtx_dev *dev)
{
	return dev && mqtx_dev_ops(dev) == &mqtx_af_xdp_ops;
}

/* ---- data path ---- */

/* Where the kernel finds @pkt's bytes: their offset in the UMEM, inside the packet's frame. */
static uint64_t xq_addr(const struct xdp_priv *p, const struct mqtx_pkt *pkt)
{
	return (uint64_t)(pkt->data - (uint8_t *)p->area.base);
}

/* The packet of completion @addr. A socket's frames complete in the order of its TX ring, so
 * it is the oldest in flight; should one ever come early, it is swapped to the front. */
static struct mqtx_pkt *xq_fly_take(struct xdp_priv *p, struct xq *x, uint64_t addr)
{
	uint32_t mask = p->ring - 1;

	for (uint32_t k = 0; k < x->nfly; k++) {
		struct mqtx_pkt **slot = &x->fly[(x->fly_head + k) & mask], *pkt = *slot;

		if (xq_addr(p, pkt) != addr)
			continue;
		*slot = x->fly[x->fly_head];
		x->fly_head = (x->fly_head + 1) & mask;
		x->nfly--;
		return pkt;
	}
	return NULL;
}

/* A packet the kernel is done with: a copy frame back to its queue, any other to its pool. */
static void xq_release(struct xq *x, struct mqtx_pkt *pkt)
{
	if (pkt->cb[0] & XF_SPARE)
		x->spare[x->nspare++] = pkt;
	else
		mqtx_pkt_free(pkt);
}

/* Lock held. Give back the packets the kernel completed; wake the queue when room is back,
 * or, if it waits for a copy frame, when packets came back or the poller (@tick) retries. */
static void xq_reap(struct xdp_priv *p, struct mqtx_txq *txq, bool tick)
{
	uint32_t i = mqtx_txq_index(txq), idx, n, done = 0;
	struct xq *x = &p->x[i];
	uint64_t bytes = 0;

	if (!x->xsk)
		return; /* closed at a stop: its rings are unmapped, and it holds nothing */
	n = xsk_ring_cons__peek(&x->comp, p->ring, &idx);
	for (uint32_t k = 0; k < n; k++) {
		struct mqtx_pkt *pkt =
			xq_fly_take(p, x, *xsk_ring_cons__comp_addr(&x->comp, idx + k));

		if (!pkt)
			continue; /* not a frame of ours: nothing to give back */
		bytes += pkt->len;
		done++;
		xq_release(x, pkt);
	}
	if (n)
		xsk_ring_cons__release(&x->comp, n);
	if (done) {
		atomic_fetch_add_explicit(&p->q[i].completed, done, memory_order_relaxed);
		mqtx_txq_completed(txq, done, (uint32_t)bytes);
	}
	if ((x->starved && (done || tick)) || p->ring - x->nfly >= p->wake_thresh) {
		x->starved = false;
		mqtx__kq_wake(&p->q[i], txq);
	}
}

/* The kernel refused a send: count it on the queue's kernel side (the frames on the TX ring
 * are no longer the caller's packets) and fail the device if the interface is gone. */
static void xq_send_error(struct mqtx_dev *dev, struct kq *q, uint32_t i, int err, int ifindex)
{
	enum mqtx_kerr e = mqtx_kerr_of(err);

	atomic_fetch_add_explicit(&q->errors, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&q->err[e], 1, memory_order_relaxed);
	atomic_store_explicit(&q->last_errno, err, memory_order_relaxed);
	if (!(atomic_fetch_or(&q->logged, 1u << e) & (1u << e)))
		mqtx_log(MQTX_LOG_WARN, "%s: txq %u: the kernel refused a send: %s (%s)",
			 mqtx_dev_name(dev), i, mqtx_kerr_name(e), strerror(err));
	if (err == ENXIO || err == ENETDOWN || err == ENODEV)
		mqtx__kq_check_gone(dev, ifindex, err);
}

/* Lock held. Have the kernel take what is on the TX ring: in copy mode each send call takes at
 * most 32 frames (net/xdp/xsk.c __xsk_generic_xmit(), then EAGAIN), so call until it is empty
 * or the kernel stops making progress (completion ring full, driver busy). */
static void xq_kick(struct mqtx_dev *dev, struct xdp_priv *p, uint32_t i)
{
	struct xq *x = &p->x[i];
	struct kq *q = &p->q[i];

	for (int k = 0; k < XQ_KICKS; k++) {
		uint32_t before = xsk_prod_nb_free(&x->tx, p->ring);

		if (before == p->ring)
			return; /* the kernel consumed everything */
		if (p->zc && !xsk_ring_prod__needs_wakeup(&x->tx))
			return;
		atomic_fetch_add_explicit(&q->calls, 1, memory_order_relaxed);
		if (sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0 || errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EBUSY) {
			if (errno == EBUSY) /* NET_XMIT_DROP: one frame completed unsent */
				xq_send_error(dev, q, i, EBUSY, p->ifindex);
			if (xsk_prod_nb_free(&x->tx, p->ring) > before)
				continue;
			atomic_fetch_add_explicit(&q->busy, 1, memory_order_relaxed);
			return; /* no progress: the poller kicks again */
		}
		xq_send_error(dev, q, i, errno, p->ifindex);
		return;
	}
}

/* Whether @pkt can go out: a packet of the UMEM's pool where it is, any other copied into a
 * frame of it. An empty descriptor is invalid (net/xdp/xsk_buff_pool.c) and never completes. */
static bool xq_fits(const struct xdp_priv *p, const struct mqtx_pkt *pkt)
{
	return pkt->len && (pkt->pool == p->pool || pkt->len <= p->area.buf_size);
}

/* Lock held. Take more copy frames from the pool (a queue never owns more than its ring);
 * false when it has none to give. */
static bool xq_refill(struct xdp_priv *p, struct xq *x)
{
	uint32_t want = p->ring - x->owned, got;

	if (want > XQ_REFILL)
		want = XQ_REFILL;
	got = want ? mqtx_pkt_alloc_bulk(p->pool, x->spare + x->nspare, want) : 0;
	x->nspare += got;
	x->owned += got;
	return got > 0;
}

/* Lock held. @pkt, of another pool, copied into a copy frame; @pkt itself is freed. */
static struct mqtx_pkt *xq_copy(struct xq *x, struct mqtx_pkt *pkt)
{
	struct mqtx_pkt *f = x->spare[--x->nspare];

	f->data = f->buf; /* the whole buffer: the headroom is of no use to the kernel */
	f->len = pkt->len;
	f->cb[0] = XF_SPARE;
	memcpy(f->data, pkt->data, pkt->len);
	mqtx_pkt_free(pkt);
	return f;
}

/* Lock held. Queue @pkt on the TX ring at @slot; the driver holds it until its completion. */
static void xq_post(struct xdp_priv *p, struct xq *x, uint32_t slot, struct mqtx_pkt *pkt)
{
	struct xdp_desc *desc = xsk_ring_prod__tx_desc(&x->tx, slot);

	desc->addr = xq_addr(p, pkt);
	desc->len = pkt->len;
	desc->options = 0;
	x->fly[(x->fly_head + x->nfly++) & (p->ring - 1)] = pkt;
}

static unsigned xdp_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			       unsigned n, bool more)
{
	struct xdp_priv *p = xdp_priv(dev);
	uint32_t i = mqtx_txq_index(txq), idx = 0, take = 0, copies = 0, room;
	struct xq *x = &p->x[i];
	struct kq *q = &p->q[i];
	uint64_t bytes = 0;
	bool starved = false;
	unsigned k;

	pthread_mutex_lock(&x->lock);
	xq_reap(p, txq, false);
	/* A TX ring slot each (the ring has an entry per packet the queue may hold), and a copy
	 * frame each for packets of other pools. */
	room = p->ring - x->nfly;
	for (k = 0; k < n && take < room; k++) {
		if (!xq_fits(p, pkts[k]))
			continue; /* refused below */
		if (pkts[k]->pool != p->pool) {
			if (copies == x->nspare && !xq_refill(p, x)) {
				starved = true;
				break;
			}
			copies++;
		}
		take++;
	}
	if (take && xsk_ring_prod__reserve(&x->tx, take, &idx) != take)
		take = k = 0; /* cannot happen (see above); refuse rather than overrun */
	for (unsigned j = 0, d = 0; j < k; j++) {
		struct mqtx_pkt *pkt = pkts[j];

		if (!xq_fits(p, pkt)) {
			mqtx__kq_refused(dev, txq, q, pkt, pkt->len ? EMSGSIZE : EINVAL,
					 p->ifindex);
			continue;
		}
		if (pkt->pool == p->pool)
			pkt->cb[0] = 0;
		else
			pkt = xq_copy(x, pkt);
		xq_post(p, x, idx + d++, pkt);
		bytes += pkt->len;
		/* Accounted before the kernel can complete it: never a completion before its send. */
		mqtx_txq_sent(txq, pkt->len, d < take);
	}
	if (take) {
		xsk_ring_prod__submit(&x->tx, take);
		atomic_fetch_add_explicit(&q->packets, take, memory_order_relaxed);
		atomic_fetch_add_explicit(&q->bytes, bytes, memory_order_relaxed);
		atomic_fetch_add_explicit(&x->in_place, take - copies, memory_order_relaxed);
		atomic_fetch_add_explicit(&x->copied, copies, memory_order_relaxed);
	}
	if (!more || p->ring - x->nfly < XQ_STOP_THRESH)
		xq_kick(dev, p, i);
	/* Stopped while a whole burst still fits; the poller or the next reap wakes it. */
	if (starved || p->ring - x->nfly < XQ_STOP_THRESH) {
		mqtx_txq_stop(txq);
		if (!atomic_exchange(&q->stopped, true))
			atomic_fetch_add_explicit(&q->stops, 1, memory_order_relaxed);
		if (starved) {
			x->starved = true;
			atomic_fetch_add_explicit(&x->copy_waits, 1, memory_order_relaxed);
		}
		xq_reap(p, txq, false); /* a completion may have come in between */
	}
	pthread_mutex_unlock(&x->lock);
	return k;
}

static uint32_t xdp_inflight(struct mqtx_dev *dev, struct mqtx_txq *txq)
{
	struct xdp_priv *p = xdp_priv(dev);
	struct xq *x = &p->x[mqtx_txq_index(txq)];
	uint32_t n;

	pthread_mutex_lock(&x->lock);
	xq_reap(p, txq, false);
	n = x->nfly;
	pthread_mutex_unlock(&x->lock);
	return n;
}

/* The poller's tick: completions of every queue, and kicks for what the kernel left. A queue
 * whose lock is taken is skipped: its sender reaps and kicks, or the next tick does. */
static void xdp_tick(struct mqtx_dev *dev, void *arg)
{
	struct xdp_priv *p = arg;

	for (uint32_t i = 0; i < p->nq; i++) {
		struct xq *x = &p->x[i];

		if (pthread_mutex_trylock(&x->lock))
			continue;
		xq_kick(dev, p, i);
		xq_reap(p, mqtx_dev_txq(dev, i), true);
		pthread_mutex_unlock(&x->lock);
	}
}

/* ---- control path ---- */

/* Close every socket, then the UMEM. A socket closed takes no more frames from its TX ring;
 * the frames it had not sent yet never complete. */
static void xdp_rings_down(struct xdp_priv *p)
{
	for (uint32_t i = p->nq; i-- > 0;) {
		xsk_socket__delete(p->x[i].xsk);
		p->x[i].xsk = NULL;
		p->x[i].fd = -1;
		p->q[i].fd = -1;
	}
	xsk_umem__delete(p->umem);
	p->umem = NULL;
}

/* The pool's area as the UMEM and a socket on each queue, bound with @bind_flags (the others
 * share the first one's UMEM and mode). 0, or -errno with *@failed the queue (UINT32_MAX: the
 * UMEM) and nothing left behind. */
static int xdp_rings_try(struct xdp_priv *p, uint16_t bind_flags, uint32_t *failed)
{
	struct xsk_umem_config uc = {
		.fill_size = XQ_FILL_RING,
		.comp_size = p->ring,
		.frame_size = p->frame,
	};
	struct xsk_socket_config sc = {
		.tx_size = p->ring,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = bind_flags,
	};
	int err = xsk_umem__create(&p->umem, p->area.base, p->area.size, &p->x[0].fill,
				   &p->x[0].comp, &uc);

	*failed = UINT32_MAX;
	if (err) {
		p->umem = NULL;
		return err;
	}
	for (uint32_t i = 0; i < p->nq; i++) {
		struct xq *x = &p->x[i];

		err = xsk_socket__create_shared(&x->xsk, p->ifname, p->q0 + i, p->umem, NULL,
						&x->tx, &x->fill, &x->comp, &sc);
		if (err) {
			x->xsk = NULL;
			*failed = i;
			xdp_rings_down(p);
			return err;
		}
		x->fd = xsk_socket__fd(x->xsk);
		p->q[i].fd = x->fd;
	}
	return 0;
}

/* net/xdp/xsk.c releases a closed socket's buffer pool, and with it its queue id, from a
 * workqueue: a queue just freed by this process may still say EBUSY for a moment. */
static int xdp_rings_retry(struct xdp_priv *p, uint16_t bind_flags, uint32_t *failed)
{
	int err = xdp_rings_try(p, bind_flags, failed);

	for (int t = 0; t < 100 && err == -EBUSY; t++) {
		struct timespec ts = { 0, 5000000 };

		nanosleep(&ts, NULL);
		err = xdp_rings_try(p, bind_flags, failed);
	}
	return err;
}

/* The UMEM and the sockets in the mode asked. 0, or -errno with @msg set. */
static int xdp_rings_up(struct xdp_priv *p, enum mqtx_xdp_mode mode, char *msg, size_t msglen)
{
	const char *caps = "CAP_NET_RAW and CAP_NET_ADMIN";
	uint32_t q = 0;
	int err = -EOPNOTSUPP;

	if (mode != MQTX_XDP_COPY)
		err = xdp_rings_retry(p, XDP_ZEROCOPY | XDP_USE_NEED_WAKEUP, &q);
	p->zc = !err;
	if (err && mode == MQTX_XDP_ZEROCOPY) {
		snprintf(msg, msglen, "%s: queue %u: zero-copy AF_XDP not supported (%s)",
			 p->ifname, p->q0 + (q == UINT32_MAX ? 0 : q), mqtx__kq_cause(err, caps));
		return err;
	}
	if (err)
		err = xdp_rings_retry(p, XDP_COPY, &q);
	if (err == -EAFNOSUPPORT)
		snprintf(msg, msglen, "%s: AF_XDP is not supported by this kernel", p->ifname);
	else if (err && q == UINT32_MAX)
		snprintf(msg, msglen, "%s: cannot register the UMEM (%u frames of %u bytes): %s",
			 p->ifname, p->area.count, p->frame,
			 mqtx__kq_cause(err, "CAP_IPC_LOCK, or a higher RLIMIT_MEMLOCK"));
	else if (err == -EBUSY)
		snprintf(msg, msglen, "%s: queue %u is in use by another AF_XDP socket", p->ifname,
			 p->q0 + q);
	else if (err)
		snprintf(msg, msglen, "%s: queue %u: cannot create the XSK socket: %s", p->ifname,
			 p->q0 + q, mqtx__kq_cause(err, caps));
	return err;
}

static int xdp_open(struct mqtx_dev *dev)
{
	struct xdp_priv *p = xdp_priv(dev);
	int err, moved = mqtx__kq_if_moved(p->ifname, p->ifindex);
	char msg[192];

	if (moved < 0) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s: the interface is gone", mqtx_dev_name(dev),
			 p->ifname);
		return -ENODEV;
	}
	if (mqtx__kq_if_is_up(p->ifname) == 0) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s: the interface is down", mqtx_dev_name(dev),
			 p->ifname);
		return -ENETDOWN;
	}
	/* The interface was deleted and one of the same name made since (index @moved): the
	 * sockets and the UMEM of the old one are of no use; remake them on the new one. Down,
	 * so nothing else uses them, and stop gave every packet back. */
	if (moved > 0 && !p->torn) {
		xdp_rings_down(p);
		p->torn = true;
	}
	if (p->torn) {
		/* A new interface may not do zero-copy where the old one did. */
		err = xdp_rings_up(p,
				   !p->zc      ? MQTX_XDP_COPY
				   : moved > 0 ? MQTX_XDP_AUTO
					       : MQTX_XDP_ZEROCOPY,
				   msg, sizeof(msg));
		if (err) {
			mqtx_log(MQTX_LOG_ERR, "%s: %s", mqtx_dev_name(dev), msg);
			return err;
		}
		p->torn = false;
		if (moved > 0)
			p->ifindex = moved;
	}
	/* Completions raise no event on the socket: the poller looks every millisecond. */
	err = mqtx__kq_poller_start(&p->poller, dev, p->q, p->nq, 1, xdp_tick, p);
	if (err)
		mqtx_log(MQTX_LOG_ERR, "%s: cannot start the poller: %s", mqtx_dev_name(dev),
			 strerror(-err));
	return err;
}

/* Lock held. Every packet queue @x holds goes back: those in flight (counted as flushed) to
 * their pools, and its copy frames to the UMEM's pool. */
static void xq_give_back(struct xdp_priv *p, struct xq *x, struct kq *q)
{
	atomic_fetch_add(&q->flushed, x->nfly);
	while (x->nfly) {
		xq_release(x, x->fly[x->fly_head]);
		x->fly_head = (x->fly_head + 1) & (p->ring - 1);
		x->nfly--;
	}
	mqtx_pkt_free_bulk(x->spare, x->nspare);
	x->nspare = 0;
	x->owned = 0;
	x->starved = false;
}

/* Down: let the kernel finish what it holds (a bounded wait). What it still holds then (the
 * interface is down or gone) it is made to let go of by closing the sockets, which the next
 * open makes again; every packet the driver held then goes back to its pool. */
static void xdp_stop(struct mqtx_dev *dev)
{
	struct xdp_priv *p = xdp_priv(dev);
	struct timespec ms = { 0, 1000000 };
	uint32_t held = 1;

	mqtx__kq_poller_stop(&p->poller);
	for (int t = 0; t < 200 && held; t++) {
		if (t)
			nanosleep(&ms, NULL);
		held = 0;
		for (uint32_t i = 0; i < p->nq; i++) {
			struct xq *x = &p->x[i];

			pthread_mutex_lock(&x->lock);
			xq_kick(dev, p, i);
			xq_reap(p, mqtx_dev_txq(dev, i), false);
			held += x->nfly;
			pthread_mutex_unlock(&x->lock);
		}
	}
	if (held) {
		xdp_rings_down(p);
		p->torn = true;
	}
	for (uint32_t i = 0; i < p->nq; i++) {
		struct xq *x = &p->x[i];

		pthread_mutex_lock(&x->lock);
		xq_give_back(p, x, &p->q[i]);
		pthread_mutex_unlock(&x->lock);
		mqtx_txq_bql_reset(mqtx_dev_txq(dev, i));
	}
}

static void xdp_uninit(struct mqtx_dev *dev)
{
	struct xdp_priv *p = xdp_priv(dev);

	if (p->x) {
		xdp_rings_down(p);
		for (uint32_t i = 0; i < p->nq; i++) {
			struct xq *x = &p->x[i];

			if (x->fly && x->spare)
				xq_give_back(p, x, &p->q[i]);
			mqtx_free(x->fly);
			mqtx_free(x->spare);
			pthread_mutex_destroy(&x->lock);
		}
	}
	mqtx_free(p->x);
	mqtx_free(p->q);
	p->x = NULL;
	p->q = NULL;
	mqtx_pool_destroy(p->pool); /* the device's hold: the pool goes with the last one */
	p->pool = NULL;
}

static void xdp_ktxq_stats(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_ktxq_stats *st)
{
	mqtx__kq_snapshot(&xdp_priv(dev)->q[mqtx_txq_index(txq)], st);
}

static void xdp_get_xstats(struct mqtx_dev *dev, struct mqtx_txq *txq, mqtx_xstat_fn emit,
			   void *arg)
{
	struct xdp_priv *p = xdp_priv(dev);
	uint64_t invalid = 0, in_place = 0, copied = 0, waits = 0;
	struct mqtx_ktxq_stats st;

	for (uint32_t i = 0; i < p->nq; i++) {
		struct xdp_statistics xs;
		socklen_t len = sizeof(xs);
		struct xq *x = &p->x[i];

		if (txq && mqtx_txq_index(txq) != i)
			continue;
		if (x->fd >= 0 && !getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &xs, &len))
			invalid += xs.tx_invalid_descs;
		in_place += atomic_load_explicit(&x->in_place, memory_order_relaxed);
		copied += atomic_load_explicit(&x->copied, memory_order_relaxed);
		waits += atomic_load_explicit(&x->copy_waits, memory_order_relaxed);
	}
	if (txq) {
		mqtx__kq_snapshot(&p->q[mqtx_txq_index(txq)], &st);
		emit("queue_id", p->q0 + mqtx_txq_index(txq), arg);
	} else {
		mqtx_dev_ktxq_stats(dev, -1, &st);
		emit("zerocopy", p->zc, arg);
		mqtx__kq_emit_if(p->ifname, emit, arg);
	}
	mqtx__kq_emit(&st, emit, arg);
	emit("tx_invalid_descs", invalid, arg);
	emit("in_place", in_place, arg);
	emit("copied", copied, arg);
	emit("copy_waits", waits, arg);
	if (!txq)
		emit("umem_frames", p->area.count, arg);
}

static int xdp_change(struct mqtx_dev *dev, const struct mqtx_dev_settings *set, char *msg,
		      size_t msglen)
{
	struct xdp_priv *p = xdp_priv(dev);

	if (set->mask & (MQTX_DEV_SET_RING | MQTX_DEV_SET_COALESCE | MQTX_DEV_SET_RATE)) {
		snprintf(msg, msglen,
			 "%s: the XSK rings of %s are sized at creation (ring %u): "
			 "delete and add the device to change them",
			 mqtx_dev_name(dev), p->ifname, p->ring);
		return -EOPNOTSUPP;
	}
	if (set->mask & MQTX_DEV_SET_MTU) {
		if (set->mtu + 18 > p->area.buf_size) {
			snprintf(msg, msglen,
				 "%s: mtu %u does not fit a UMEM frame of %u bytes (%u of them "
				 "hold a packet)",
				 mqtx_dev_name(dev), set->mtu, p->frame, p->area.buf_size);
			return -EINVAL;
		}
		return mqtx__kq_if_set_mtu(p->ifname, set->mtu, msg, msglen);
	}
	return 0;
}

const struct mqtx_dev_ops mqtx_af_xdp_ops = {
	.kind = "af_xdp",
	.priv_size = sizeof(struct xdp_priv),
	.uninit = xdp_uninit,
	.open = xdp_open,
	.stop = xdp_stop,
	.xmit_burst = xdp_xmit_burst,
	.inflight = xdp_inflight,
	.get_xstats = xdp_get_xstats,
	.change = xdp_change,
	.ktxq_stats = xdp_ktxq_stats,
};

/* Check @cfg against the interface and @pool (NULL: the device makes its own); fills @frame.
 * The ifindex, or -errno with @msg set. */
static int xdp_check(const struct mqtx_af_xdp_cfg *cfg, struct mqtx_pkt_pool *pool, uint32_t *nq,
		     uint32_t *frame, char *msg, size_t msglen)
{
	uint32_t ring = cfg->ring ? cfg->ring : MQTX_XDP_RING_DEFAULT;
	struct mqtx_pool_frames area = { .frame = MQTX_XDP_FRAME_DEFAULT };
	int have, idx = mqtx__kq_ifindex(cfg->ifname, msg, msglen);

	if (idx < 0)
		return idx;
	if (pool && mqtx_pool_frames(pool, &area)) {
		snprintf(msg, msglen,
			 "%s: the pool's packets are not frames of one area "
			 "(mqtx_pool_create_frames())",
			 cfg->ifname);
		return -EINVAL;
	}
	*frame = cfg->frame ? cfg->frame : area.frame;
	if (ring < 64 || ring > MQTX_XDP_RING_MAX || (ring & (ring - 1))) {
		snprintf(msg, msglen, "%s: ring %u is not a power of two in 64..%u", cfg->ifname,
			 ring, MQTX_XDP_RING_MAX);
		return -EINVAL;
	}
	if (*frame != 2048 && *frame != 4096) {
		snprintf(msg, msglen, "%s: frame %u: a UMEM frame is 2048 or 4096 bytes",
			 cfg->ifname, *frame);
		return -EINVAL;
	}
	if (pool && *frame != area.frame) {
		snprintf(msg, msglen, "%s: frame %u: the pool's frames are of %u bytes",
			 cfg->ifname, *frame, area.frame);
		return -EINVAL;
	}
	if (cfg->mode > MQTX_XDP_ZEROCOPY) {
		snprintf(msg, msglen, "%s: unknown mode %d", cfg->ifname, (int)cfg->mode);
		return -EINVAL;
	}
	have = mqtx_if_tx_queues(cfg->ifname);
	if (have < 0)
		have = 1;
	if (!*nq)
		*nq = (uint32_t)have > cfg->queue ? (uint32_t)have - cfg->queue : 0;
	if (!*nq || cfg->queue + *nq > (uint32_t)have) {
		snprintf(msg, msglen, "%s: no queue %u (the interface has %d TX queues)",
			 cfg->ifname, cfg->queue + (*nq ? *nq - 1 : 0), have);
		return -EINVAL;
	}
	return idx;
}

/* The queues' memory and the UMEM's pool: @pool held, or a pool of the device's own with a
 * frame per ring entry of every queue, as much as the copies can use. 0 or -errno. */
static int xdp_alloc(struct xdp_priv *p, struct mqtx_pkt_pool *pool)
{
	/* No per-thread caches: the queues take its frames a few at a time for copies, and a
	 * cache would keep some in a thread that never sends. */
	struct mqtx_pool_cfg pc = { .count = p->ring * p->nq, .cache_size = 1 };
	int err;

	p->q = mqtx_alloc(sizeof(*p->q) * p->nq, MQTX_CACHE_LINE);
	p->x = mqtx_alloc(sizeof(*p->x) * p->nq, MQTX_CACHE_LINE);
	if (!p->q || !p->x) {
		mqtx_free(p->q);
		mqtx_free(p->x);
		p->q = NULL;
		p->x = NULL;
		return -ENOMEM;
	}
	mqtx__kq_init(p->q, p->nq);
	memset(p->x, 0, sizeof(*p->x) * p->nq);
	for (uint32_t i = 0; i < p->nq; i++) {
		struct xq *x = &p->x[i];

		pthread_mutex_init(&x->lock, NULL);
		x->fd = -1;
		x->fly = mqtx_alloc(sizeof(*x->fly) * p->ring, 0);
		x->spare = mqtx_alloc(sizeof(*x->spare) * p->ring, 0);
		if (!x->fly || !x->spare)
			return -ENOMEM;
	}
	if (pool) {
		mqtx_pool_hold(pool);
		p->pool = pool;
	} else if ((uint64_t)p->ring * p->nq > UINT32_MAX) {
		return -ENOMEM;
	} else {
		err = mqtx_pool_create_frames(&pc, p->frame, &p->pool);
		if (err)
			return err == -EINVAL ? -ENOMEM : err; /* only too many frames */
	}
	return mqtx_pool_frames(p->pool, &p->area);
}

static int xdp_create(const struct mqtx_dev_cfg *base, const struct mqtx_af_xdp_cfg *xdp,
		      struct mqtx_pkt_pool *pool, struct mqtx_dev **out)
{
	struct mqtx_dev_cfg c = *base;
	struct mqtx_dev *dev;
	struct xdp_priv *p;
	uint32_t frame = 0;
	char msg[192];
	int err, idx;

	if (!xdp || !xdp->ifname || !*xdp->ifname) {
		mqtx_log(MQTX_LOG_ERR, "af_xdp: %s: needs an interface (ifname)",
			 base->name ? base->name : "");
		return -EINVAL;
	}
	idx = xdp_check(xdp, pool, &c.num_txq, &frame, msg, sizeof(msg));
	if (idx < 0) {
		mqtx_log(MQTX_LOG_ERR, "af_xdp: %s", msg);
		return idx;
	}
	c.ops = &mqtx_af_xdp_ops;
	c.priv_size = 0;
	err = mqtx_dev_create(&c, &dev);
	if (err)
		return err;
	p = xdp_priv(dev);
	snprintf(p->ifname, sizeof(p->ifname), "%s", xdp->ifname);
	p->ifindex = idx;
	p->q0 = xdp->queue;
	p->ring = xdp->ring ? xdp->ring : MQTX_XDP_RING_DEFAULT;
	p->frame = frame;
	p->wake_thresh = p->ring / 4 > XQ_STOP_THRESH ? p->ring / 4 : XQ_STOP_THRESH;
	p->nq = mqtx_dev_num_txq(dev);
	err = xdp_alloc(p, pool);
	if (err)
		snprintf(msg, sizeof(msg), "%s: out of memory for %u queues of %u frames",
			 p->ifname, p->nq, p->ring);
	else
		err = xdp_rings_up(p, xdp->mode, msg, sizeof(msg));
	if (err) {
		mqtx_log(MQTX_LOG_ERR, "af_xdp: %s", msg);
		mqtx_dev_destroy(dev); /* deletes the sockets, the UMEM and the pool made so far */
		return err;
	}
	*out = dev;
	return 0;
}

int mqtx_af_xdp_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_af_xdp_cfg *xdp,
			   struct mqtx_dev **out)
{
	return xdp_create(base, xdp, NULL, out);
}

int mqtx_af_xdp_dev_create_with_pool(const struct mqtx_dev_cfg *base,
				     const struct mqtx_af_xdp_cfg *xdp, struct mqtx_pkt_pool *pool,
				     struct mqtx_dev **out)
{
	if (!pool) {
		mqtx_log(MQTX_LOG_ERR, "af_xdp: %s: needs a pool", base->name ? base->name : "");
		return -EINVAL;
	}
	return xdp_create(base, xdp, pool, out);
}

/* Kept for callers of the first releases: mqtx_dev_ktxq_stats() serves every driver. */
int mqtx_af_xdp_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st)
{
	return is_xdp(dev) ? mqtx_dev_ktxq_stats(dev, i, st) : -EINVAL;
}

const char *mqtx__kq_xdp_if(struct mqtx_dev *dev, int *ifindex)
{
	if (!is_xdp(dev))
		return NULL;
	*ifindex = xdp_priv(dev)->ifindex;
	return xdp_priv(dev)->ifname;
}

int mqtx_af_xdp_zerocopy(struct mqtx_dev *dev)
{
	return is_xdp(dev) ? xdp_priv(dev)->zc : -EINVAL;
}

struct mqtx_pkt_pool *mqtx_af_xdp_pool(struct mqtx_dev *dev)
{
	return is_xdp(dev) ? xdp_priv(dev)->pool : NULL;
}
