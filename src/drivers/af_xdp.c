// SPDX-License-Identifier: MIT
/* The af_xdp driver: TX queue i is an AF_XDP socket (libxdp) on interface queue Q0 + i. */
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

/* One queue: its UMEM, its rings and the free frames. The lock serialises the sender and the
 * poller on the completion ring and the free list. */
struct xq {
	pthread_mutex_t lock;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp;
	void *area;
	uint64_t *free_addr; /* stack of free frame addresses */
	uint32_t nfree;
	uint32_t *len; /* length of the frame in flight, by frame number */
	int fd;
} __attribute__((aligned(MQTX_CACHE_LINE)));

struct xdp_priv {
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint32_t q0, frame, ring, wake_thresh;
	bool zc;
	uint32_t nq;
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

/* Lock held. Give back the frames the kernel completed; wake the queue when room is back. */
static void xq_reap(struct xdp_priv *p, struct mqtx_txq *txq)
{
	uint32_t i = mqtx_txq_index(txq), idx, n;
	struct xq *x = &p->x[i];
	uint64_t bytes = 0;

	n = xsk_ring_cons__peek(&x->comp, p->ring, &idx);
	for (uint32_t k = 0; k < n; k++) {
		uint64_t addr = *xsk_ring_cons__comp_addr(&x->comp, idx + k);

		bytes += x->len[addr / p->frame];
		x->free_addr[x->nfree++] = addr;
	}
	if (!n)
		return;
	xsk_ring_cons__release(&x->comp, n);
	atomic_fetch_add_explicit(&p->q[i].completed, n, memory_order_relaxed);
	mqtx_txq_completed(txq, n, (uint32_t)bytes);
	if (x->nfree >= p->wake_thresh)
		kq_wake(&p->q[i], txq);
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
		kq_check_gone(dev, ifindex, err);
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

static unsigned xdp_xmit_burst(struct mqtx_dev *dev, struct mqtx_txq *txq, struct mqtx_pkt **pkts,
			       unsigned n, bool more)
{
	struct xdp_priv *p = xdp_priv(dev);
	uint32_t i = mqtx_txq_index(txq), idx = 0, take = 0;
	struct xq *x = &p->x[i];
	struct kq *q = &p->q[i];
	uint64_t bytes = 0;
	unsigned k;

	pthread_mutex_lock(&x->lock);
	xq_reap(p, txq);
	/* The TX ring has as many entries as the UMEM has frames: a free frame is a free slot. */
	for (k = 0; k < n && take < x->nfree; k++)
		take += pkts[k]->len <= p->frame;
	if (take && xsk_ring_prod__reserve(&x->tx, take, &idx) != take)
		take = k = 0; /* cannot happen (see above); refuse rather than overrun */
	for (unsigned j = 0, d = 0; j < k; j++) {
		struct mqtx_pkt *pkt = pkts[j];
		struct xdp_desc *desc;
		uint64_t addr;

		if (pkt->len > p->frame) {
			kq_refused(dev, txq, q, pkt, EMSGSIZE, p->ifindex);
			continue;
		}
		addr = x->free_addr[--x->nfree];
		memcpy(xsk_umem__get_data(x->area, addr), pkt->data, pkt->len);
		x->len[addr / p->frame] = pkt->len;
		desc = xsk_ring_prod__tx_desc(&x->tx, idx + d++);
		desc->addr = addr;
		desc->len = pkt->len;
		desc->options = 0;
		bytes += pkt->len;
		/* Accounted before the kernel can complete it: never a completion before its send. */
		mqtx_txq_sent(txq, pkt->len, d < take);
		mqtx_pkt_free(pkt);
	}
	if (take) {
		xsk_ring_prod__submit(&x->tx, take);
		atomic_fetch_add_explicit(&q->packets, take, memory_order_relaxed);
		atomic_fetch_add_explicit(&q->bytes, bytes, memory_order_relaxed);
	}
	if (!more || x->nfree < XQ_STOP_THRESH)
		xq_kick(dev, p, i);
	/* Stopped while a whole burst still fits; the poller or the next reap wakes it. */
	if (x->nfree < XQ_STOP_THRESH) {
		mqtx_txq_stop(txq);
		if (!atomic_exchange(&q->stopped, true))
			atomic_fetch_add_explicit(&q->stops, 1, memory_order_relaxed);
		xq_reap(p, txq); /* a completion may have come in between */
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
	xq_reap(p, txq);
	n = p->ring - x->nfree;
	pthread_mutex_unlock(&x->lock);
	return n;
}

/* The poller's tick: completions of every queue, and kicks for what the kernel left. */
static void xdp_tick(struct mqtx_dev *dev, void *arg)
{
	struct xdp_priv *p = arg;

	for (uint32_t i = 0; i < p->nq; i++) {
		struct xq *x = &p->x[i];

		pthread_mutex_lock(&x->lock);
		xq_kick(dev, p, i);
		xq_reap(p, mqtx_dev_txq(dev, i));
		pthread_mutex_unlock(&x->lock);
	}
}

/* ---- control path ---- */

static int xq_create(struct xdp_priv *p, uint32_t i, enum mqtx_xdp_mode mode, char *msg,
		     size_t msglen);
static void xq_destroy(struct xq *x);

/*
 * The interface was deleted and one of the same name made since (index @ifindex): a UMEM and
 * a socket on it for every queue, all made before the old ones go, so that a failure leaves
 * the device as it was. Zero-copy again if the old ones had it and the new interface can.
 * Device down: nothing else uses the queues.
 */
static int xdp_reattach(struct mqtx_dev *dev, struct xdp_priv *p, int ifindex)
{
	struct xq *old = p->x, *nx = mqtx_alloc(sizeof(*nx) * p->nq, MQTX_CACHE_LINE);
	enum mqtx_xdp_mode mode = p->zc ? MQTX_XDP_AUTO : MQTX_XDP_COPY;
	bool zc = p->zc;
	uint32_t made = 0;
	char msg[192];
	int err = 0;

	if (!nx)
		return -ENOMEM;
	memset(nx, 0, sizeof(*nx) * p->nq);
	p->x = nx; /* xq_create() makes queue i of p->x */
	for (; made < p->nq && !err; made++)
		err = xq_create(p, made, made && !p->zc ? MQTX_XDP_COPY : mode, msg, sizeof(msg));
	if (err) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s", mqtx_dev_name(dev), msg);
		p->zc = zc;
		p->x = old;
		old = nx; /* what goes: the new */
	} else {
		for (uint32_t i = 0; i < p->nq; i++)
			p->q[i].fd = nx[i].fd;
		p->ifindex = ifindex;
	}
	for (uint32_t i = 0; i < made; i++) /* a queue that failed is destroyed too */
		xq_destroy(&old[i]);
	mqtx_free(old);
	return err;
}

static int xdp_open(struct mqtx_dev *dev)
{
	struct xdp_priv *p = xdp_priv(dev);
	int err, moved = kq_if_moved(p->ifname, p->ifindex);

	if (moved < 0) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s: the interface is gone", mqtx_dev_name(dev),
			 p->ifname);
		return -ENODEV;
	}
	if (kq_if_is_up(p->ifname) == 0) {
		mqtx_log(MQTX_LOG_ERR, "%s: %s: the interface is down", mqtx_dev_name(dev),
			 p->ifname);
		return -ENETDOWN;
	}
	if (moved > 0 && (err = xdp_reattach(dev, p, moved)))
		return err;
	/* Completions raise no event on the socket: the poller looks every millisecond. */
	err = kq_poller_start(&p->poller, dev, p->q, p->nq, 1, xdp_tick, p);
	if (err)
		mqtx_log(MQTX_LOG_ERR, "%s: cannot start the poller: %s", mqtx_dev_name(dev),
			 strerror(-err));
	return err;
}

/* Down: let the kernel finish what it holds (a bounded wait), count the rest as flushed. */
static void xdp_stop(struct mqtx_dev *dev)
{
	struct xdp_priv *p = xdp_priv(dev);
	struct timespec ms = { 0, 1000000 };

	kq_poller_stop(&p->poller);
	for (uint32_t i = 0; i < p->nq; i++) {
		struct mqtx_txq *txq = mqtx_dev_txq(dev, i);
		struct xq *x = &p->x[i];

		pthread_mutex_lock(&x->lock);
		for (int t = 0; t < 200 && x->nfree < p->ring; t++) {
			xq_kick(dev, p, i);
			xq_reap(p, txq);
			if (x->nfree < p->ring)
				nanosleep(&ms, NULL);
		}
		atomic_fetch_add(&p->q[i].flushed, p->ring - x->nfree);
		pthread_mutex_unlock(&x->lock);
		mqtx_txq_bql_reset(txq);
	}
}

static void xq_destroy(struct xq *x)
{
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	mqtx_free(x->area);
	mqtx_free(x->free_addr);
	mqtx_free(x->len);
	pthread_mutex_destroy(&x->lock);
}

static void xdp_uninit(struct mqtx_dev *dev)
{
	struct xdp_priv *p = xdp_priv(dev);

	for (uint32_t i = 0; p->x && i < p->nq; i++)
		xq_destroy(&p->x[i]);
	mqtx_free(p->x);
	mqtx_free(p->q);
	p->x = NULL;
	p->q = NULL;
}

static void xdp_get_xstats(struct mqtx_dev *dev, struct mqtx_txq *txq, mqtx_xstat_fn emit,
			   void *arg)
{
	struct xdp_priv *p = xdp_priv(dev);
	struct mqtx_ktxq_stats st;
	uint64_t invalid = 0;

	for (uint32_t i = 0; i < p->nq; i++) {
		struct xdp_statistics xs;
		socklen_t len = sizeof(xs);

		if ((!txq || mqtx_txq_index(txq) == i) &&
		    !getsockopt(p->x[i].fd, SOL_XDP, XDP_STATISTICS, &xs, &len))
			invalid += xs.tx_invalid_descs;
	}
	if (txq) {
		kq_snapshot(&p->q[mqtx_txq_index(txq)], &st);
		emit("queue_id", p->q0 + mqtx_txq_index(txq), arg);
	} else {
		kq_sum(p->q, p->nq, &st);
		emit("zerocopy", p->zc, arg);
		kq_emit_if(p->ifname, emit, arg);
	}
	kq_emit(&st, emit, arg);
	emit("tx_invalid_descs", invalid, arg);
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
		if (set->mtu + 18 > p->frame) {
			snprintf(msg, msglen, "%s: mtu %u does not fit a UMEM frame of %u bytes",
				 mqtx_dev_name(dev), set->mtu, p->frame);
			return -EINVAL;
		}
		return kq_if_set_mtu(p->ifname, set->mtu, msg, msglen);
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
};

/* The UMEM and the socket of queue @i, bound with @bind_flags. 0 or -errno. */
static int xq_setup(struct xdp_priv *p, uint32_t i, uint16_t bind_flags)
{
	struct xq *x = &p->x[i];
	struct xsk_umem_config uc = {
		.fill_size = XQ_STOP_THRESH, /* unused: no receive */
		.comp_size = p->ring,
		.frame_size = p->frame,
	};
	struct xsk_socket_config sc = {
		.tx_size = p->ring,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = bind_flags,
	};
	int err = xsk_umem__create(&x->umem, x->area, (uint64_t)p->ring * p->frame, &x->fill,
				   &x->comp, &uc);

	if (err)
		return err;
	/* net/xdp/xsk.c releases a closed socket's buffer pool, and with it its queue id, from a
	 * workqueue: a queue just freed by this process may still say EBUSY for a moment. */
	for (int t = 0; t < 100; t++) {
		struct timespec ts = { 0, 5000000 };

		err = xsk_socket__create(&x->xsk, p->ifname, p->q0 + i, x->umem, NULL, &x->tx, &sc);
		if (err != -EBUSY)
			break;
		nanosleep(&ts, NULL);
	}
	if (err) {
		xsk_umem__delete(x->umem);
		x->umem = NULL;
		x->xsk = NULL;
		return err;
	}
	x->fd = xsk_socket__fd(x->xsk);
	return 0;
}

/* Queue @i: memory, then the socket in the mode asked. 0, or -errno with @msg set. */
static int xq_create(struct xdp_priv *p, uint32_t i, enum mqtx_xdp_mode mode, char *msg,
		     size_t msglen)
{
	struct xq *x = &p->x[i];
	int err = -EOPNOTSUPP;

	pthread_mutex_init(&x->lock, NULL);
	x->fd = -1;
	x->area = mqtx_alloc((size_t)p->ring * p->frame, 4096); /* UMEM: page aligned */
	x->free_addr = mqtx_alloc(sizeof(*x->free_addr) * p->ring, 0);
	x->len = mqtx_alloc(sizeof(*x->len) * p->ring, 0);
	if (!x->area || !x->free_addr || !x->len) {
		snprintf(msg, msglen, "%s: queue %u: out of memory", p->ifname, p->q0 + i);
		return -ENOMEM;
	}
	for (uint32_t f = 0; f < p->ring; f++)
		x->free_addr[f] = (uint64_t)(p->ring - 1 - f) * p->frame;
	x->nfree = p->ring;
	if (mode != MQTX_XDP_COPY)
		err = xq_setup(p, i, XDP_ZEROCOPY | XDP_USE_NEED_WAKEUP);
	p->zc = !err;
	if (err && mode == MQTX_XDP_ZEROCOPY) {
		snprintf(msg, msglen, "%s: queue %u: zero-copy AF_XDP not supported (%s)",
			 p->ifname, p->q0 + i, kq_cause(err, "CAP_NET_RAW and CAP_NET_ADMIN"));
		return err;
	}
	if (err)
		err = xq_setup(p, i, XDP_COPY);
	if (err == -EBUSY)
		snprintf(msg, msglen, "%s: queue %u is in use by another AF_XDP socket", p->ifname,
			 p->q0 + i);
	else if (err == -EAFNOSUPPORT)
		snprintf(msg, msglen, "%s: AF_XDP is not supported by this kernel", p->ifname);
	else if (err)
		snprintf(msg, msglen, "%s: queue %u: cannot create the XSK socket: %s", p->ifname,
			 p->q0 + i, kq_cause(err, "CAP_NET_RAW and CAP_NET_ADMIN"));
	return err;
}

/* Check @cfg against the interface; fills p's geometry. 0, or -errno with @msg set. */
static int xdp_check(const struct mqtx_af_xdp_cfg *cfg, uint32_t *nq, char *msg, size_t msglen)
{
	uint32_t ring = cfg->ring ? cfg->ring : MQTX_XDP_RING_DEFAULT;
	uint32_t frame = cfg->frame ? cfg->frame : MQTX_XDP_FRAME_DEFAULT;
	int have, idx = kq_ifindex(cfg->ifname, msg, msglen);

	if (idx < 0)
		return idx;
	if (ring < 64 || ring > MQTX_XDP_RING_MAX || (ring & (ring - 1))) {
		snprintf(msg, msglen, "%s: ring %u is not a power of two in 64..%u", cfg->ifname,
			 ring, MQTX_XDP_RING_MAX);
		return -EINVAL;
	}
	if (frame != 2048 && frame != 4096) {
		snprintf(msg, msglen, "%s: frame %u: a UMEM frame is 2048 or 4096 bytes",
			 cfg->ifname, frame);
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

int mqtx_af_xdp_dev_create(const struct mqtx_dev_cfg *base, const struct mqtx_af_xdp_cfg *xdp,
			   struct mqtx_dev **out)
{
	struct mqtx_dev_cfg c = *base;
	struct mqtx_dev *dev;
	struct xdp_priv *p;
	char msg[192];
	int err, idx;

	if (!xdp || !xdp->ifname || !*xdp->ifname) {
		mqtx_log(MQTX_LOG_ERR, "af_xdp: %s: needs an interface (ifname)",
			 base->name ? base->name : "");
		return -EINVAL;
	}
	idx = xdp_check(xdp, &c.num_txq, msg, sizeof(msg));
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
	p->frame = xdp->frame ? xdp->frame : MQTX_XDP_FRAME_DEFAULT;
	p->wake_thresh = p->ring / 4 > XQ_STOP_THRESH ? p->ring / 4 : XQ_STOP_THRESH;
	p->nq = mqtx_dev_num_txq(dev);
	p->q = mqtx_alloc(sizeof(*p->q) * p->nq, MQTX_CACHE_LINE);
	p->x = mqtx_alloc(sizeof(*p->x) * p->nq, MQTX_CACHE_LINE);
	if (!p->q || !p->x) {
		mqtx_free(p->q);
		mqtx_free(p->x);
		p->q = NULL;
		p->x = NULL;
		mqtx_dev_destroy(dev);
		return -ENOMEM;
	}
	kq_init(p->q, p->nq);
	memset(p->x, 0, sizeof(*p->x) * p->nq);
	for (uint32_t i = 0; i < p->nq && !err; i++) {
		/* Every queue in the mode the first one got. */
		err = xq_create(p, i, i && !p->zc ? MQTX_XDP_COPY : xdp->mode, msg, sizeof(msg));
		p->q[i].fd = p->x[i].fd;
	}
	if (err) {
		mqtx_log(MQTX_LOG_ERR, "af_xdp: %s", msg);
		mqtx_dev_destroy(dev); /* deletes every socket and UMEM made so far */
		return err;
	}
	*out = dev;
	return 0;
}

int mqtx_af_xdp_txq_stats(struct mqtx_dev *dev, int i, struct mqtx_ktxq_stats *st)
{
	struct xdp_priv *p;

	if (!is_xdp(dev) || i >= (int)mqtx_dev_num_txq(dev))
		return -EINVAL;
	p = xdp_priv(dev);
	if (i < 0)
		kq_sum(p->q, p->nq, st);
	else
		kq_snapshot(&p->q[i], st);
	return 0;
}

const char *kq_xdp_if(struct mqtx_dev *dev, int *ifindex)
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
